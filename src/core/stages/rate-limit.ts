/**
 * The per-account window of a v1 operation: every answer after this stage carries `X-RateLimit-*`, and
 * the request over the ceiling is 429 with `Retry-After`. Public operations and the ACP are not counted.
 */
import { ApiError } from "../errors.ts";
import type { Lifetime } from "../lifetime.ts";
import { rateHeaders } from "../ratelimit.ts";
import type { Stage } from "./call.ts";

export function rateLimit(life: Lifetime): Stage {
  return {
    name: "rate-limit",
    run(call) {
      if (!call.caller || !call.op.rateLimited) return undefined;
      const d = life.limiter.take(
        call.caller.user.id,
        life.world.clock.now(),
        life.config.rateLimitPerMinute,
      );
      Object.assign(call.headers, rateHeaders(d.limit, d.remaining));
      if (d.allowed) return undefined;
      throw new ApiError(429, "Too many requests. Please try again later.", undefined, {
        "retry-after": String(d.retryAfterSeconds),
      });
    },
  };
}
