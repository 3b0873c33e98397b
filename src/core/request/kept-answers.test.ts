import { describe, expect, it } from "vitest";
import type { RequestContext } from "../resource.ts";
import { Answer } from "./exchange.ts";
import { keysOutOfReach, verifyKept } from "./kept-answers.ts";

describe("checks on kept answers", () => {
  it("put API keys out of a kept answer's reach, and nothing else", () => {
    const ctx = {
      state: { apiKeys: new Map(), apiKeyByHash: new Map(), audiences: new Map([["a", 1]]) },
      apiKey: { id: "k" },
      caller: { id: "u" },
    } as unknown as RequestContext;
    const guarded = keysOutOfReach(ctx);
    expect(() => guarded.state.apiKeys).toThrow(/read API keys/);
    expect(() => guarded.state.apiKeyByHash).toThrow(/read API keys/);
    expect(() => guarded.apiKey).toThrow(/API key/);
    expect(guarded.state.audiences.get("a")).toBe(1);
    expect(guarded.caller.id).toBe("u");
    // The context itself is left as it was.
    expect(ctx.state.apiKeys.size).toBe(0);
  });

  it("let a reused answer through only when it is the answer the state gives now", () => {
    const kept = new Answer(200, {}, new TextEncoder().encode('{"a":1}'));
    expect(() => verifyKept(kept, new Answer(200, {}, '{"a":1}'), "k")).not.toThrow();
    expect(() => verifyKept(kept, new Answer(200, {}, '{"a":2}'), "k")).toThrow(/went stale: k/);
    expect(() => verifyKept(kept, new Answer(200, {}, '{"a":1} '), "k")).toThrow(/went stale/);
    expect(() => verifyKept(kept, new Answer(404, {}, '{"a":1}'), "k")).toThrow(/went stale/);
  });
});
