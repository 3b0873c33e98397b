import { describe, expect, it } from "vitest";
import { bodyOf, routed } from "../../../testing/stages.ts";
import { ownContract } from "../../contract/contract.ts";
import { buildContext } from "../request/context.ts";
import type { Answer } from "../request/exchange.ts";
import type { RouteSpec } from "../resource.ts";
import type { Services } from "../services.ts";
import { StateMemo } from "../world/memo.ts";
import type { WithBody } from "./call.ts";
import type { MakeChange } from "./change.ts";
import { grown } from "./compose.ts";
import { execute } from "./execute.ts";

/** A call as the stages before `execute` hand it on, for `spec`, without a world. */
function served(
  method: string,
  path: string,
  spec: RouteSpec,
  headers: Record<string, string> = {},
): WithBody {
  const r = grown(routed(method, path), { caller: null });
  const ctx = buildContext({ validators: ownContract.validators, services: {} as Services }, r, spec, null);
  Object.assign(r.headers, headers);
  return grown(r, { spec, ctx, recorded: null, raw: { present: false } as const });
}

function engineOf(change: MakeChange = async () => ({ status: 200, body: {} })) {
  const memo = new StateMemo();
  const turns: string[] = [];
  const run = execute({
    memo,
    changing: async (step) => {
      turns.push("turn");
      return step();
    },
    change,
    verify: false,
  });
  return { memo, turns, run };
}

describe("the execute stage", () => {
  it("answers a pure read from its handler, kept and reused until the world changes", async () => {
    let handled = 0;
    const spec: RouteSpec = { pure: true, handler: () => ({ status: 200, body: { n: ++handled } }) };
    const { memo, run } = engineOf();
    const read = () => run(served("GET", "/api/v1/audiences/6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b", spec));
    const first = (await read()) as Answer;
    const again = (await read()) as Answer;
    expect(first.status).toBe(200);
    expect(again.body).toBe(first.body);
    expect(handled).toBe(1);
    memo.touch();
    expect(bodyOf(await read())).toEqual({ n: 2 });
  });

  it("makes a change as one change, in its turn: the handler's reply, with the headers gathered before", async () => {
    const made: unknown[] = [];
    const spec: RouteSpec = { handler: () => expect.fail("a change is made through the change maker") };
    const { turns, run } = engineOf(async (ctx, s, raw, recorded, at) => {
      made.push([ctx.path, s, raw, recorded, at]);
      return { status: 200, body: { name: "Panel" } };
    });
    const c = served("PUT", "/api/v1/audiences/6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b", spec, {
      "ratelimit-limit": "300",
    });
    const renamed = (await run(c)) as Answer;
    expect(renamed.status).toBe(200);
    expect(renamed.headers["ratelimit-limit"]).toBe("300");
    expect(bodyOf(renamed)).toEqual({ name: "Panel" });
    expect(made).toEqual([
      ["/api/v1/audiences/6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b", spec, { present: false }, null, undefined],
    ]);
    expect(turns).toEqual(["turn"]);
    expect(c.who.pure).toBe(false);
  });

  it("marks a pure read pure, and a change of keys only as such, for the journal and kept answers", async () => {
    const { run } = engineOf();
    const read = served("GET", "/api/v1/auth/me", { pure: true, handler: () => ({ status: 200, body: {} }) });
    expect((await run(read)).status).toBe(200);
    expect(read.who.pure).toBe(true);
    const keys = served("POST", "/api/v1/api-keys", {
      keysOnly: true,
      handler: () => ({ status: 200, body: {} }),
    });
    await run(keys);
    expect([keys.who.pure, keys.who.keysOnly]).toEqual([false, true]);
  });
});
