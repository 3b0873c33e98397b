/** What a stateful check cannot put back is reported at the end, never silently left on the target. */
import { expect, it } from "vitest";
import { world } from "../checks/world.ts";
import { runCheck } from "../lib/running/context.ts";
import { bodyOf, is, withBody } from "./fault-kit.ts";
import { brokenServer } from "./harness.ts";

// Shrinking is not what this is about.
process.env.CONFORMANCE_SHRINK_MS ??= "500";

it("a target that will not make the Audience private again gets the world check's leftover reported", async () => {
  // Once public, always public: PUT ignores isPublic: false.
  const server = await brokenServer(async (req, next) => {
    if (!is(req, "PUT", /\/audiences\/[0-9a-f-]{36}$/)) return next(req);
    const { req: copy, json } = await bodyOf(req);
    const body = json as { isPublic?: unknown };
    if (body?.isPublic === false) delete body.isPublic;
    return next(withBody(copy, body));
  }, 3);
  try {
    const leftovers: string[] = [];
    const found = await runCheck(world, server.info, undefined, { onLeftovers: (w) => leftovers.push(...w) });
    expect(found.length).toBeGreaterThan(0);
    expect(leftovers).toEqual([`Audience ${server.info.audiences.main}: isPublic is true, was false`]);
  } finally {
    await server.close();
  }
});
