/**
 * The API key of an operation that needs one: a missing or unknown key is 401 (with the rate-limit
 * headers, saying where the ceiling is, though nothing is counted without an account). A known key is
 * marked used at the world's now, and its owner is the caller from here on.
 */

import { unauthorized } from "../errors.ts";
import type { Caller } from "../request/auth.ts";
import { rateHeaders } from "../request/rate-windows.ts";
import type { CallerPart, Routed } from "./call.ts";
import { grown, type Stage } from "./compose.ts";

export interface AuthenticateDeps {
  /** The owner of the key an `Authorization` header sends, or null. */
  callerOf(authorization: string | null): Caller | null;
  /** The world's now. */
  now(): number;
  /** Requests a minute per account. */
  ceiling(): number;
}

export function authenticate(d: AuthenticateDeps): Stage<Routed, CallerPart> {
  return {
    name: "authenticate",
    run(call, next) {
      if (!call.op.authenticated) return next(grown(call, { caller: null }));
      const caller = d.callerOf(call.request.headers.get("authorization"));
      if (!caller) {
        const ceiling = d.ceiling();
        if (call.op.rateLimited) Object.assign(call.headers, rateHeaders(ceiling, ceiling));
        throw unauthorized();
      }
      call.who.userId = caller.user.id;
      // Written only when it moves: a key used again at the same instant (a manual clock, a busy
      // millisecond) is left as it is, and the old record then gets no new number to point at.
      const now = d.now();
      if (caller.key.lastUsedAt !== now) caller.key.lastUsedAt = now;
      return next(grown(call, { caller }));
    },
  };
}
