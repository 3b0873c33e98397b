/**
 * The per-account window of a v1 operation: every answer after this stage carries `X-RateLimit-*`, and
 * the request over the ceiling is 429 with `Retry-After`. Public operations and the ACP are not counted.
 */
import { ApiError } from "../errors.ts";
import { type RateDecision, rateHeaders } from "../request/rate-windows.ts";
import type { Authenticated } from "./call.ts";
import type { Stage } from "./compose.ts";

/** `count`: counts one request of the account in its window, at the world's now, under the ceiling. */
export function rateLimit(count: (userId: string) => RateDecision): Stage<Authenticated> {
  return {
    name: "rate-limit",
    run(call, next) {
      if (!call.caller || !call.op.rateLimited) return next(call);
      const d = count(call.caller.user.id);
      Object.assign(call.headers, rateHeaders(d.limit, d.remaining));
      if (d.allowed) return next(call);
      throw new ApiError(429, "Too many requests. Please try again later.", undefined, {
        "retry-after": String(d.retryAfterSeconds),
      });
    },
  };
}
