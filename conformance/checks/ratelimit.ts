/**
 * 429: with a known limit (the simulator's, set through its control plane, or `rateLimitPerMinute` from
 * the config), going past it yields 429 with Retry-After, other accounts are unaffected, and the window
 * recovers.
 */

import type { Credentials, Exchange } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import { type CheckContext, type CheckDef, check } from "../lib/running/context.ts";

const SIM_LIMIT = 5;

export const rateLimit = check("ratelimit/429", ["limits/rate-limit"], {
  needs: { roles: ["member", "owner"], rateLimit: true },
  async run(ctx) {
    const role: Role = "member";
    const me = (r: Role = role) => ctx.call({ op: "getMe", as: ctx.as(r), retry: false, pace: false });
    // A second key of the same account, made before the window under test: the budget is the account's,
    // so the window is spent by both keys in turn (a budget per key lets more through, or counts apart). A
    // quick run, shorter than a window, has the second key delete itself before the window is spent.
    let second = ctx.info.readOnly ? null : await secondKey(ctx, role);
    const limit = ctx.target.isSimulator
      ? await simulatorLimit(ctx)
      : (ctx.info.rateLimitPerMinute as number);
    // Against a deployment another account's window is wherever the run left it: what it has left before
    // and after the first account's spending shows whether that spending was counted against it too.
    const bystander: Role | null = ctx.target.isSimulator
      ? null
      : ((["outsider", "solo", "sso", "publisher"] as Role[]).find((r) => ctx.target.has(r)) ?? null);
    const before = bystander ? await me(bystander) : null;
    const seen: Exchange[] = [];
    let refused: Exchange | null = null;
    // The window may end while the check spends it (it began with requests of earlier checks): a rise to
    // the ceiling less one starts the count again, so a window's limit is always given its full chance.
    let windowStart = 0;
    for (let i = 0; i - windowStart < limit + 5 && i < 3 * (limit + 5) && !refused; i++) {
      const ex = await spend(ctx, { i, limit, seen, second, me });
      if (ex.status === 429) refused = ex;
      else {
        if (newWindow(seen.at(-1), ex, limit)) windowStart = i;
        seen.push(ex);
      }
      if (second && ex.operation?.operationId === "deleteApiKey" && ex.status === 204) {
        second.alive = false;
        second = null;
      }
    }
    // Exact counting where every request of the account is counted in one place; what holds on any
    // deployment (several instances, each counting its own) everywhere.
    if (ctx.info.rateLimitExact) checkCounting(ctx, seen, limit, ctx.target.isSimulator, refused !== null);
    else checkHeaders(ctx, seen, limit);
    if (!refused) {
      // The limit is the contract's, or the one the config declares for the deployment.
      ctx.expect(
        false,
        "limits/rate-limit",
        `${limit + 5} requests within one window were all served (limit ${limit}; ${seen.length} in all)`,
        seen.at(-1),
      );
      return;
    }
    checkRefusal(ctx, refused);
    if (bystander && before) {
      const after = await me(bystander);
      const was = Number(before.header("ratelimit-remaining"));
      const now = Number(after.header("ratelimit-remaining"));
      ctx.expect(
        after.status !== 429,
        "limits/rate-limit",
        `${bystander}, another account, was refused: the window is per account`,
        after,
      );
      // One request of its own in between; more means it paid for the other account's (a new window
      // would show more left, not less).
      ctx.expect(
        !(Number.isFinite(was) && Number.isFinite(now)) || now >= was - 1,
        "limits/rate-limit",
        `${bystander}'s RateLimit-Remaining went from ${was} to ${now} while only ${role} spent: its budget counts another account's requests`,
        after,
      );
    }
    if (ctx.target.has("owner") && ctx.target.isSimulator) {
      // The window started fresh for every account, so the owner's first request spends only its own budget.
      const other = await me("owner");
      ctx.expect(
        other.status !== 429,
        "limits/rate-limit",
        "another account was refused: the window is per account",
        other,
      );
      ctx.expect(
        other.header("ratelimit-remaining") === String(limit - 1),
        "limits/rate-limit",
        `another account's first request of the window shows RateLimit-Remaining ${other.header("ratelimit-remaining")}, not ${limit - 1}: its budget counts someone else's requests`,
        other,
      );
    }
    if (second) {
      // The key the 429 did not come from: the account's budget is spent for it too.
      const byFirst = refused.keyLabel === role;
      const same = byFirst
        ? await ctx.call({
            op: "getMe",
            as: { key: second.key, label: second.label },
            retry: false,
            pace: false,
          })
        : await me();
      ctx.expect(
        same.status === 429,
        "limits/rate-limit",
        `another key of the refused account answered ${same.status}, not 429: the budget is per key, not per account`,
        same,
      );
    }
    if (ctx.info.quick) {
      // The window ends up to a minute later: longer than a quick run takes.
      ctx.partly(
        "the window's recovery after Retry-After, and another key of the refused account (each a wait of up to a minute)",
      );
      return;
    }
    const wait = Number(refused.header("retry-after") ?? 60);
    await ctx.target.advance((Number.isFinite(wait) ? Math.min(wait, 61) : 61) * 1000 + 1000);
    const again = await me();
    ctx.expectStatus(again, 200, "limits/rate-limit", `after waiting Retry-After (${wait} s) the account`);
  },
});

/**
 * The window's `i`-th request: every other one with the account's second key, while it lives. In a quick
 * run the second key deletes itself (a deletion is a request of the account too), so that nothing waits for
 * the window to end to clean up: as the window's last request where the count is exact, halfway otherwise.
 */
async function spend(
  ctx: CheckContext,
  w: {
    i: number;
    limit: number;
    seen: readonly Exchange[];
    second: SecondKey | null;
    me: () => Promise<Exchange>;
  },
): Promise<Exchange> {
  const { i, second, me } = w;
  if (!second) return me();
  const remaining = Number(w.seen.at(-1)?.header("ratelimit-remaining"));
  const last = ctx.info.rateLimitExact ? remaining === 1 : i === Math.floor(w.limit / 2);
  if (ctx.info.quick && last) {
    return ctx.call({
      op: "deleteApiKey",
      params: { keyId: second.keyId },
      as: { key: second.key, label: second.label },
      retry: false,
      pace: false,
    });
  }
  const as = { key: second.key, label: second.label };
  return i % 2 === 1 ? ctx.call({ op: "getMe", as, retry: false, pace: false }) : me();
}

type SecondKey = Credentials & { keyId: string; alive: boolean };

async function secondKey(ctx: CheckContext, role: Role): Promise<SecondKey | null> {
  const made = await ctx.call({
    op: "createApiKey",
    as: ctx.as(role),
    json: { name: "conformance rate-limit" },
  });
  if (made.status !== 201) {
    ctx.inconclusive(
      `a second key of ${role} could not be made (${made.status}): the budget's sharing by keys is not judged`,
    );
    return null;
  }
  const second: SecondKey = { key: made.body.key, label: `${role}_second`, keyId: made.body.id, alive: true };
  // Gone already when it deleted itself (spend). A quick run does not wait out the window to delete it:
  // a refused deletion is listed as not cleaned up.
  ctx.defer(async () =>
    second.alive
      ? ctx.call({
          op: "deleteApiKey",
          params: { keyId: second.keyId },
          as: ctx.as(role),
          ...(ctx.info.quick ? { retry: false, pace: false } : {}),
        })
      : null,
  );
  return second;
}

/** Sets a small limit on the simulator for the check, and puts the run's limit back afterwards. */
async function simulatorLimit(ctx: CheckContext): Promise<number> {
  const before = (await ctx.target.control("GET", "/config")) as { rateLimitPerMinute: number };
  ctx.defer(() => ctx.target.control("PATCH", "/config", { rateLimitPerMinute: before.rateLimitPerMinute }));
  await ctx.target.control("PATCH", "/config", { rateLimitPerMinute: SIM_LIMIT });
  // A fresh window for every account.
  await ctx.target.advance(61_000);
  return SIM_LIMIT;
}

/**
 * Exact counting, where every request of the account is counted in one place: each request leaves one less
 * than the one before, and the window serves as many more as the first said it had left. Whether the window
 * was fresh when the check began is known only on the simulator, whose window the check started anew; on a
 * deployment the run may have spent from it already (other checks used the same account moments before),
 * so the count starts from what the first answer says. A rise to the ceiling less one is a new window.
 */
function checkCounting(
  ctx: CheckContext,
  seen: Exchange[],
  limit: number,
  fresh: boolean,
  refusedAtLast: boolean,
): void {
  let windowStart = 0;
  let first: number | null = null;
  let expected: number | null = null;
  seen.forEach((ex, i) => {
    checkCeiling(ctx, ex, limit);
    const r = Number(ex.header("ratelimit-remaining"));
    if (expected === null) {
      if (fresh)
        ctx.expect(
          r === limit - 1,
          "limits/rate-limit",
          `request 1 of a fresh window: RateLimit-Remaining ${ex.header("ratelimit-remaining")}, not ${limit - 1}`,
          ex,
        );
      first = r;
    } else if (r === limit - 1 && expected !== limit - 1) {
      windowStart = i;
      first = r;
    } else
      ctx.expect(
        r === expected,
        "limits/rate-limit",
        `request ${i + 1}: RateLimit-Remaining ${ex.header("ratelimit-remaining")}, not ${expected} (one less than the request before)`,
        ex,
      );
    expected = r - 1;
  });
  // A window that served everything is reported by the check beside this count (no 429 at all).
  if (refusedAtLast) servedBeforeRefusal(ctx, seen.length - windowStart, first, fresh, seen.at(-1));
}

/**
 * A window's first 429 came after as many requests as its first answer said were left. Where the very first
 * request was refused: wrong in a window the check started anew, unknowable in one the run may have spent.
 */
function servedBeforeRefusal(
  ctx: CheckContext,
  served: number,
  first: number | null,
  fresh: boolean,
  last: Exchange | undefined,
): void {
  if (first !== null)
    ctx.expect(
      served === first + 1,
      "limits/rate-limit",
      `${served} requests were served in the window before the first 429; its first answer said ${first} more were left`,
      last,
    );
  else if (fresh)
    ctx.expect(false, "limits/rate-limit", "the first request of a fresh window was answered 429", null);
  else ctx.inconclusive("the account's window was spent before the count began: nothing was counted");
}

/** Whether `ex` is the first answer of a new window: Remaining back up at the ceiling less one. */
function newWindow(previous: Exchange | undefined, ex: Exchange, limit: number): boolean {
  if (!previous) return false;
  const before = Number(previous.header("ratelimit-remaining"));
  const now = Number(ex.header("ratelimit-remaining"));
  return now === limit - 1 && before !== limit - 1 && now > before;
}

/** RateLimit-Limit is the ceiling; answers the number the header says. */
function checkCeiling(ctx: CheckContext, ex: Exchange, limit: number): number {
  const l = Number(ex.header("ratelimit-limit"));
  ctx.expect(
    l === limit,
    "limits/rate-limit",
    `RateLimit-Limit ${ex.header("ratelimit-limit")}, the ceiling is ${limit}`,
    ex,
  );
  return l;
}

/**
 * What holds on any deployment, however many places count: RateLimit-Limit is the ceiling, Remaining is
 * never above it nor below 0, and within a window it never rises (a rise to the ceiling less one is the
 * first request of a new window).
 */
function checkHeaders(ctx: CheckContext, seen: Exchange[], limit: number): void {
  let last: number | null = null;
  for (const ex of seen) {
    const l = checkCeiling(ctx, ex, limit);
    const r = Number(ex.header("ratelimit-remaining"));
    const inRange = Number.isInteger(r) && r >= 0 && r <= l;
    ctx.expect(
      inRange,
      "limits/rate-limit",
      `RateLimit-Remaining ${ex.header("ratelimit-remaining")} is not a count from 0 to RateLimit-Limit ${l}`,
      ex,
    );
    if (inRange && last !== null && r > last && r < limit - 1)
      ctx.expect(
        false,
        "limits/rate-limit",
        `RateLimit-Remaining rose from ${last} to ${r} within a window`,
        ex,
      );
    if (inRange) last = r;
  }
}

function checkRefusal(ctx: CheckContext, ex: Exchange): void {
  const ra = ex.header("retry-after");
  ctx.expect(
    ra !== null && /^\d+$/.test(ra.trim()) && Number(ra) >= 1 && Number(ra) <= 60,
    "limits/rate-limit",
    `Retry-After is ${JSON.stringify(ra)}, not whole seconds from 1 to the window's 60 while refused`,
    ex,
  );
  ctx.expect(
    ex.header("ratelimit-remaining") === "0",
    "limits/rate-limit",
    `a 429 says RateLimit-Remaining ${ex.header("ratelimit-remaining")}`,
    ex,
  );
  const msg = ex.body?.statusMessage;
  ctx.expect(
    msg === "Too many requests. Please try again later.",
    "limits/rate-limit",
    `statusMessage ${JSON.stringify(msg)}`,
    ex,
  );
  ctx.coverage.limit("getMe:x-rate-limit");
}

export const rateLimitChecks: CheckDef[] = [rateLimit];
