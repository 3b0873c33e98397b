/**
 * How a run against a deployment spends what it may. A deployment has the contract's rate limit (300
 * requests a minute per account) and real time, so the default run is planned to one window per account:
 * checks are taken in the order of the catalogue rules they reach per request (what a check has not yet
 * reached counts first), as long as every account they use has budget left; the world model gets at least a
 * third of each window and draws as many sequences as what is left allows; checks that wait in real time
 * on copies of their own run beside the others. What does not fit is left for `--deep`, and said so.
 *
 * Costs are the requests each check spent per account in a measured quick run (`costs.json`, kept by
 * `scripts/kit-costs.ts` from a `--json` report); a check without a measure is assumed to cost `UNMEASURED`
 * per role it needs. A measure that drifted costs time, not correctness: the kit paces itself by the
 * target's `RateLimit-Remaining` whatever the plan says.
 */

import { limits } from "../description/contract.ts";
import type { RuleId } from "../description/rules.ts";
import type { TargetInfo } from "../http/target.ts";
import type { CheckDef } from "../running/context.ts";
import { skipReason } from "../running/skips.ts";
import COSTS from "./costs.json" with { type: "json" };
import type { WindowsLeft } from "./windows.ts";

/** Requests per account (costs.json is kept per account: `owner_new` counts as `owner`). */
export type Cost = Record<string, number>;

export interface Plan {
  /** Run one after another, in this order. */
  sequential: CheckDef[];
  /** Run beside the sequential ones (a deployment's real-time waits). */
  concurrent: CheckDef[];
  /** Not run: what the plan could not fit, with the reason. */
  deferred: { def: CheckDef; reason: string }[];
  /** The requests per account the plan allows (null: unplanned, as on the simulator or with --deep). */
  budget: number | null;
  /** Accounts whose window was spent in part when the run began: what it had left. */
  short: Record<string, number>;
}

/**
 * Checks planned with what is left, not with a measure: they size themselves at run time. The cases
 * (conformance/cases) take what they can and list the rest; the world model draws as many sequences as the
 * windows still hold.
 */
export const isElastic = (c: CheckDef): boolean => c.name === "stateful/world" || c.name.startsWith("cases/");
/** The share of each account's window kept for the world model. */
const WORLD_SHARE = 1 / 3;
/** Requests a check nobody measured is assumed to cost, per account it names. */
const UNMEASURED = 20;
/** Kept aside of every window for cleanups, retries and what the measures did not see. */
const MARGIN = 0.1;

export function isMeasured(def: CheckDef): boolean {
  return Object.hasOwn(COSTS, def.name);
}

export function costOf(def: CheckDef): Cost {
  const measured = (COSTS as Record<string, Cost>)[def.name];
  if (measured) return measured;
  const roles = def.needs?.roles ?? ["owner"];
  return Object.fromEntries(roles.map((r) => [r, UNMEASURED]));
}

const total = (c: Cost) => Object.values(c).reduce((a, b) => a + b, 0);

/**
 * `left`: what each account's window had left when the run began (windows.ts); an account it does not name
 * is taken to have a full window.
 */
export function planRun(checks: readonly CheckDef[], info: TargetInfo, left: WindowsLeft = new Map()): Plan {
  const deployment = info.kind === "deployment";
  const concurrent = deployment ? checks.filter((c) => c.concurrent) : [];
  // What uses up a deployment's consumable (a collaborator removed for good) runs after everything that
  // may still need it; on the simulator a reset puts it back, and the kit's order stands.
  const consuming = deployment ? checks.filter((c) => c.needs?.consumesCollaborator) : [];
  const rest = checks.filter((c) => !concurrent.includes(c) && !consuming.includes(c));
  if (!info.quick)
    return { sequential: [...rest, ...consuming], concurrent, deferred: [], budget: null, short: {} };

  const limit = info.rateLimitPerMinute ?? limits().rateLimitPerMinute;
  const budget = Math.floor(limit * (1 - MARGIN));
  const margin = limit - budget;
  // An account whose window others spent in part has that much less, the margin still kept (the request
  // that read what was left is the run's own).
  const short = Object.fromEntries([...left].filter(([, n]) => n + 1 - margin < budget));
  const spent = new Map<string, number>();
  const capOf = (account: string, cap: number) =>
    account in short
      ? Math.max(0, Math.floor(((short[account] as number) + 1 - margin) * (cap / budget)))
      : cap;
  const fits = (c: Cost, cap: number) =>
    Object.entries(c).every(([account, n]) => (spent.get(account) ?? 0) + n <= capOf(account, cap));
  const take = (c: Cost) => {
    for (const [account, n] of Object.entries(c)) spent.set(account, (spent.get(account) ?? 0) + n);
  };
  // A check the target cannot run is skipped for that reason by the runner, not planned.
  const runnable = (c: CheckDef) => skipReason(c, info) === null;
  const reached = new Set<RuleId>();
  const deferred: Plan["deferred"] = [];
  const taken: CheckDef[] = [];
  // The 429 check spends what is left of its account's window, so it goes last and plans nothing.
  const last = rest.filter((c) => c.needs?.rateLimit || isElastic(c));
  let open = rest.filter((c) => !last.includes(c) && runnable(c));
  const unplanned = rest.filter((c) => !last.includes(c) && !runnable(c));
  const cap = Math.floor(budget * (last.some(isElastic) ? 1 - WORLD_SHARE : 1));
  // What runs beside the rest is planned first; what sizes itself always runs.
  const beside: CheckDef[] = [];
  for (const c of concurrent) {
    const cost = costOf(c);
    if (!isElastic(c) && !fits(cost, cap)) {
      deferred.push({ def: c, reason: `left for --deep: ${overrun(cost, spent, cap, capOf, short)}` });
      continue;
    }
    take(cost);
    beside.push(c);
  }
  while (open.length) {
    const score = (c: CheckDef) => {
      const fresh = c.rules.filter((r) => !reached.has(r)).length;
      return (fresh * 1000 + c.rules.length) / (total(costOf(c)) + 1);
    };
    const best = open.reduce((a, b) => (score(b) > score(a) ? b : a));
    open = open.filter((c) => c !== best);
    const cost = costOf(best);
    if (!fits(cost, cap)) {
      deferred.push({ def: best, reason: `left for --deep: ${overrun(cost, spent, cap, capOf, short)}` });
      continue;
    }
    take(cost);
    for (const r of best.rules) reached.add(r);
    taken.push(best);
  }
  const sequential = [
    ...taken,
    ...unplanned,
    // The cases first, then the world model, then the check that spends a window.
    ...last.sort((a, b) => lastOrder(a) - lastOrder(b)),
    ...consuming,
  ];
  return { sequential, concurrent: beside, deferred, budget, short };
}

function lastOrder(c: CheckDef): number {
  return c.name.startsWith("cases/") ? 0 : c.name === "stateful/world" ? 1 : 2;
}

/** The accounts whose planned window `cost` would overrun, named for the reason a check is left out. */
function overrun(
  cost: Cost,
  spent: ReadonlyMap<string, number>,
  cap: number,
  capOf: (account: string, cap: number) => number,
  short: Record<string, number>,
): string {
  const over = Object.entries(cost)
    .filter(([account, n]) => (spent.get(account) ?? 0) + n > capOf(account, cap))
    .map(([account]) =>
      account in short
        ? `the ${account} account's window (${capOf(account, cap)} requests in this quick run: it had ${short[account]} left when the run began)`
        : `the ${account} account's window (${cap} requests in a quick run)`,
    );
  return `${over.join(" and ")} ${over.length > 1 ? "are" : "is"} planned full`;
}

/**
 * What judging the checks a quick run left would take: their measured requests per account, and the
 * rate-limit windows the busiest account needs for them (a minute each), or null when none were left.
 */
export function whatDeepTakes(plan: Plan): string | null {
  if (plan.deferred.length === 0 || plan.budget === null) return null;
  const need = new Map<string, number>();
  for (const { def } of plan.deferred)
    for (const [account, n] of Object.entries(costOf(def))) need.set(account, (need.get(account) ?? 0) + n);
  const busiest = Math.max(0, ...need.values());
  const windows = Math.max(1, Math.ceil(busiest / plan.budget));
  const accounts = [...need]
    .sort((a, b) => b[1] - a[1])
    .map(([account, n]) => `${account} ${n}`)
    .join(", ");
  return `the ${plan.deferred.length} check(s) left for --deep need about ${accounts} requests: ${windows} more rate-limit window${windows === 1 ? "" : "s"} (about ${windows} min) beside this run's; run with --deep to judge them`;
}
