import { describe, expect, it } from "vitest";
import { PASSED, refusal, routed, through } from "../../../testing/stages.ts";
import { ownContract } from "../../contract/contract.ts";
import { buildContext } from "../request/context.ts";
import type { RouteSpec } from "../resource.ts";
import type { Services } from "../services.ts";
import { body, takenAsRecorded } from "./body.ts";
import type { Authorized } from "./call.ts";
import { grown } from "./compose.ts";

const validators = ownContract.validators;
const spec: RouteSpec = { handler: () => ({ status: 200, body: {} }) };
/** A call as `authorize` hands it on, without a world: the handler's context over no services. */
function authorized(
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Authorized {
  const r = grown(routed(method, path, init), { caller: null });
  const ctx = buildContext({ validators, services: {} as Services }, r, spec, null);
  return grown(r, { spec, ctx, recorded: null });
}
const rename = (text: string, headers?: Record<string, string>) =>
  authorized("PUT", "/api/v1/audiences/6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b", {
    body: text,
    ...(headers ? { headers } : {}),
  });

describe("the body stage", () => {
  it("reads a JSON body, takes it for the handler and keeps its text for the journal", async () => {
    const { passed } = await through(body(validators), rename('{"name":"Panel"}'));
    expect(passed?.ctx.body).toEqual({ name: "Panel" });
    expect(passed?.raw).toEqual({ present: true, text: '{"name":"Panel"}' });
    expect(passed?.who.body).toBe('{"name":"Panel"}');
  });

  it("refuses a body that is not JSON (400), of another media type (415), or against the schema (400)", async () => {
    const stage = body(validators);
    expect((await refusal(() => through(stage, rename("{name")))).status).toBe(400);
    expect((await refusal(() => through(stage, rename("x", { "content-type": "text/plain" })))).status).toBe(
      415,
    );
    expect((await refusal(() => through(stage, rename("{}")))).status).toBe(400);
  });

  it("passes a read on at once, with nothing read", () => {
    let passed: Authorized | null = null;
    const read = authorized("GET", "/api/v1/auth/me");
    const done = body(validators).run(read, (c) => {
      passed = c;
      return PASSED;
    });
    expect(done).toBe(PASSED);
    expect((passed as unknown as { raw: { present: boolean } }).raw.present).toBe(false);
  });

  it("takes a recorded body instead of reading one, and checks it the same", async () => {
    const recorded = body(validators, (c: Authorized) => takenAsRecorded(c, '{"name":"Kept"}'));
    const { passed } = await through(
      recorded,
      authorized("PUT", "/api/v1/audiences/6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b"),
    );
    expect(passed?.ctx.body).toEqual({ name: "Kept" });
    const broken = body(validators, (c: Authorized) => takenAsRecorded(c, "{}"));
    expect(
      (
        await refusal(() =>
          through(broken, authorized("PUT", "/api/v1/audiences/6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b")),
        )
      ).status,
    ).toBe(400);
  });
});
