/**
 * The API key of an operation that needs one: a missing or unknown key is 401 (with the rate-limit
 * headers, saying where the ceiling is, though nothing is counted without an account). A known key is
 * marked used at the world's now, and its owner is the caller from here on.
 */
import { type Caller, authenticate as findCaller } from "../auth.ts";
import { unauthorized } from "../errors.ts";
import type { Lifetime } from "../lifetime.ts";
import { rateHeaders } from "../ratelimit.ts";
import type { ApiCall, Stage } from "./call.ts";

export function authenticate(life: Lifetime): Stage {
  const admit = (call: ApiCall, caller: Caller | null): undefined => {
    if (!caller) {
      const ceiling = life.config.rateLimitPerMinute;
      if (call.op.rateLimited) Object.assign(call.headers, rateHeaders(ceiling, ceiling));
      throw unauthorized();
    }
    call.caller = caller;
    call.who.userId = caller.user.id;
    caller.key.lastUsedAt = life.world.clock.now();
    return undefined;
  };
  return {
    name: "authenticate",
    run(call) {
      if (!call.op.authenticated) return undefined;
      return admit(call, findCaller(life.world.state, call.request.headers.get("authorization")));
    },
  };
}
