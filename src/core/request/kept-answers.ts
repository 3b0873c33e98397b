/**
 * Checks on answers kept for reuse (src/core/world/memo.ts), made while tests run (`verifyKeptAnswers`): a kept
 * answer must be what the state gives now, and must not read API keys, whose changes leave kept answers
 * in place (`RouteSpec.keysOnly`).
 */

import type { RequestContext } from "../resource.ts";
import { Answer, type Outcome } from "./exchange.ts";

/** Reading API keys throws: what a kept answer is rendered with under `verifyKeptAnswers`. */
export function keysOutOfReach(ctx: RequestContext): RequestContext {
  const state = new Proxy(ctx.state, {
    get(target, table, receiver) {
      if (table === "apiKeys" || table === "apiKeyByHash")
        throw new Error("A kept answer read API keys: a change of keys leaves kept answers (keysOnly)");
      return Reflect.get(target, table, receiver);
    },
  });
  const guarded = { ...ctx, state };
  Object.defineProperty(guarded, "apiKey", {
    get() {
      throw new Error("A kept answer read the caller's API key: a change of keys leaves kept answers");
    },
  });
  return guarded;
}

/** A kept answer that is reused must be the answer the state gives now (`fresh`); throws if not. */
export function verifyKept(known: Answer, fresh: Outcome, key: string): void {
  const bytes = (a: Outcome) => (a instanceof Answer ? (a.encoded().body as Uint8Array | null) : null);
  const [was, is] = [bytes(known), bytes(fresh)];
  const same = was !== null && is !== null && was.length === is.length && was.every((b, i) => b === is[i]);
  if (!same || known.status !== fresh.status) throw new Error(`A kept answer went stale: ${key}`);
}
