/**
 * What each account's rate-limit window has left when a quick run against a deployment starts. The window
 * may be spent in part already (the run just before, other traffic on the same keys): the plan then fits
 * the checks into what is left rather than into a full window, and what does not fit is left for --deep,
 * said so, instead of being started and cut off at its first request.
 */
import { accountOf, HttpClient, type PaceMemory } from "../http/http.ts";
import type { Role, TargetInfo } from "../http/target.ts";
import { Target } from "../running/target-view.ts";

/** Requests left per account (`owner_new` counts as `owner`); an account whose answer said nothing is absent. */
export type WindowsLeft = ReadonlyMap<string, number>;

/**
 * Reads every account's `RateLimit-Remaining` with one `GET /auth/me` of one of its keys (the cheapest
 * request every key may make), into the run's pace memory too. A target that does not answer is left to
 * the checks to find.
 */
export async function readWindows(
  info: TargetInfo,
  pace: PaceMemory,
  fetch?: typeof globalThis.fetch,
): Promise<WindowsLeft> {
  const target = new Target(info, fetch);
  const client = new HttpClient({
    baseUrl: info.baseUrl,
    prefixFor: (p) => target.prefixFor(p),
    waitWindow: async () => {},
    backoffBaseMs: 500,
    maxAttempts: 1,
    pace,
    deadline: info.deadline ?? null,
    ...(fetch ? { fetch } : {}),
  });
  const left = new Map<string, number>();
  for (const role of Object.keys(info.keys) as Role[]) {
    const account = accountOf(role);
    if (left.has(account)) continue;
    try {
      const ex = await client.call({ op: "getMe", as: target.cred(role), retry: false, pace: false });
      const remaining = Number(ex.header("ratelimit-remaining"));
      if (ex.status === 429) left.set(account, 0);
      else if (ex.header("ratelimit-remaining") !== null && Number.isFinite(remaining))
        left.set(account, remaining);
    } catch {
      return left;
    }
  }
  return left;
}
