/**
 * A requirement a check cannot go on without (`require`, `requireStatus`) reports first and then ends the
 * part being judged: the check, one example of a property, or a `part`. An answer the check did not expect
 * is never passed over in silence, and a part's end does not end the parts after it.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { check, runCheck } from "../lib/running/context.ts";
import { type BrokenServer, brokenServer } from "./harness.ts";

let server: BrokenServer;
beforeAll(async () => {
  server = await brokenServer(null);
});
afterAll(() => server.close());

// `GET /auth/me` without a key: a 401 that each check below requires to be a 200.
const noKey = { op: "getMe", as: null } as const;

it("reports the unmet status, then ends the check without running what needed it", async () => {
  let after = false;
  const c = check("selftest/require", ["auth/401"], {
    needs: {},
    async run(ctx) {
      ctx.requireStatus(await ctx.call(noKey), 200, "auth/401", "me without a key");
      after = true;
    },
  });
  const found = await runCheck(c, server.info);
  expect(found.map((v) => v.message)).toEqual(["me without a key answered 401, not 200"]);
  expect(after).toBe(false);
});

it("ends one part only: the parts after it are judged", async () => {
  const judged: string[] = [];
  const c = check("selftest/parts", ["auth/401"], {
    needs: {},
    async run(ctx) {
      for (const name of ["first", "second"])
        await ctx.part(async () => {
          ctx.require(false, "auth/401", `${name} unmet`, await ctx.call(noKey));
          judged.push(name);
        });
      judged.push("after the parts");
    },
  });
  const found = await runCheck(c, server.info);
  expect(found.map((v) => v.message)).toEqual(["first unmet", "second unmet"]);
  expect(judged).toEqual(["after the parts"]);
});

it("ends one example of a property, which fails with the report", async () => {
  const c = check("selftest/property", ["auth/401"], {
    needs: {},
    async run(ctx) {
      await ctx.property(
        "unmet",
        fc.constant(0),
        async () => ctx.requireStatus(await ctx.call(noKey), 200, "auth/401", "me"),
        { numRuns: 2 },
      );
    },
  });
  const found = await runCheck(c, server.info);
  expect(found).toHaveLength(1);
  expect(found[0]?.message).toMatch(/^me answered 401, not 200 \(property "unmet"/);
});
