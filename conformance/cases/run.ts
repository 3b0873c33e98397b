/**
 * Runs cases as a check: for each, its precondition, its request, its answer judged against every answer
 * the description allows, the effects read back, and what a success changed put back before the next case
 * runs. A case the target cannot have (a handle its config lacks, a read-only run, the simulator's control
 * plane) is left, naming why; a case whose precondition could not be made is inconclusive, never passed.
 */
import { limits, op } from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import type { Credentials, Exchange } from "../lib/http/http.ts";
import { type CheckContext, type CheckDef, check, MissingHandle } from "../lib/running/context.ts";
import { type Answer, answersOf, type Case, type CaseWorld, type Ending } from "./case.ts";
import { judgeAnswer } from "./judge.ts";
import { undoOf } from "./undo.ts";

/** A handle or field the target does not have: the case is left, naming it. */
const Missing = MissingHandle;

function worldOf(ctx: CheckContext, made: Record<string, unknown>): CaseWorld {
  const info = ctx.info;
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Missing(what);
    return value;
  };
  return {
    info,
    made,
    aud: (h) => need(info.audiences[h], `readable.audiences.${h}`),
    mind: (h) => need(info.minds[h], `readable.minds.${h}`),
    formation: (h) => need(info.formations[h]?.id, `readable.formations.${h}`),
    user: (r) => need(info.users[r], `users.${r}`),
    price: (h) => need(info.prices[h], `prices.${h}`),
  };
}

/** Why the target cannot have the case at all, or null. */
function leftOut(ctx: CheckContext, c: Case): string | null {
  const info = ctx.info;
  if (info.readOnly && mutates(c, op(c.op).method)) return "a read-only run (--read-only)";
  if (c.simulatorOnly && info.kind !== "simulator") return `needs the simulator: ${c.simulatorOnly}`;
  if (c.resets && !info.mayReset)
    return "changes what the API cannot undo, and the run may not reset (--no-reset)";
  if (c.as && !info.keys[c.as]) return `the target has no key for ${c.as} (keys.${c.as})`;
  if (c.changes && info.kind !== "simulator" && !ctx.target.canChange(c.changes))
    return `changes ${c.changes}, which the config does not list as changeable (changeable.audiences.${c.changes})`;
  return null;
}

/** Whether a case changes state: its own word, or a precondition to make, or any method but GET and HEAD. */
export function mutates(c: Case, method: string): boolean {
  return c.mutates ?? (c.given !== undefined || !["GET", "HEAD"].includes(method));
}

/** Runs one case; what it found is reported on `ctx`, how it ended is returned. */
export async function runCase(ctx: CheckContext, c: Case): Promise<"judged" | "inconclusive" | "left"> {
  const left = leftOut(ctx, c);
  if (left) return leave(ctx, c, left);
  const cleanups: ((ending: Ending) => Promise<unknown>)[] = [];
  let answer: Exchange | null = null;
  const reported = ctx.reportedCount();
  try {
    let w = worldOf(ctx, {});
    let cred: Credentials | null = c.as ? ctx.as(c.as) : null;
    if (c.given) {
      const made = await c.given(ctx, w, (fn) => cleanups.unshift(fn));
      if ("unmade" in made) {
        if (made.refused) {
          // A request the precondition needed, which the description allows, was refused: that is a finding.
          ctx.report({ rule: c.rule, message: `${c.id}: ${made.unmade}`, exchange: made.refused });
          ctx.coverage.caseOutcome(c.id, "judged");
          return "judged";
        }
        ctx.inconclusive(`${c.id}: ${made.unmade}`);
        ctx.coverage.caseOutcome(c.id, "inconclusive");
        return "inconclusive";
      }
      w = worldOf(ctx, made.made);
      ctx.onCaseMade?.(c.id, made.made);
      if (made.as) cred = made.as;
    }
    const spec = c.request(w);
    const answers = answersOf(c, w);
    const ex = await ctx.call({ ...spec, op: c.op, as: cred });
    answer = ex;
    judge(ctx, c.rule, c.id, ex, answers);
    const undo = undoOf(c.op, ex, cred, w);
    if (undo) cleanups.unshift(() => undo(ctx));
    for (const e of c.after ?? []) {
      const as = e.as === "case" ? cred : typeof e.as === "function" ? e.as(w) : ctx.as(e.as);
      const again = await ctx.call({ ...e.request(w, ex), op: e.op, as });
      const allowed = typeof e.expect === "function" ? e.expect(w, ex) : e.expect;
      judge(ctx, c.rule, `${c.id}, then ${e.what}`, again, allowed);
    }
    ctx.coverage.caseOutcome(c.id, "judged");
    return "judged";
  } catch (e) {
    if (e instanceof Missing) return leave(ctx, c, `the target lacks ${e.message}`);
    throw e;
  } finally {
    const ending = { answer, found: ctx.reportedCount() > reported };
    const back = ctx.undoingFromNowOn();
    for (const fn of cleanups) {
      try {
        await fn(ending);
      } catch (e) {
        ctx.leftover(`${c.id}: ${(e as Error).message}`);
      }
    }
    back();
  }
}

function leave(ctx: CheckContext, c: Case, why: string): "left" {
  ctx.coverage.caseOutcome(c.id, "left", why);
  return "left";
}

function judge(
  ctx: CheckContext,
  rule: RuleId,
  what: string,
  ex: Exchange,
  allowed: readonly Answer[],
): void {
  // A body that is not JSON (a Markdown download) is judged as its text.
  const body = ex.json ?? (ex.text === "" ? undefined : ex.text);
  const got = {
    status: ex.status,
    body,
    contentType: ex.header("content-type"),
    headers: ex.responseHeaders,
  };
  const problem = judgeAnswer(got, allowed, {
    relaxed: ctx.info.relaxWording === true,
  });
  if (problem) ctx.report({ rule, message: `${what}: ${problem}`, exchange: ex });
}

/**
 * The cases of one group as a check: it declares every rule its cases judge. `concurrent`: its cases work
 * only on what they make themselves (a copy of their own), so against a deployment the group may wait in
 * real time beside the other checks.
 */
export function caseCheck(
  name: string,
  cases: readonly Case[],
  title?: string,
  concurrent = false,
): CheckDef {
  const rules = [...new Set(cases.flatMap((c) => [c.rule, ...(c.also ?? [])]))] as RuleId[];
  return check(name, rules, {
    title: title ?? `${cases.length} cases: ${rules.join(", ")}`,
    concurrent,
    async run(ctx) {
      const c = ctx as CheckContext;
      if (!c.info.quick) {
        for (const x of cases) await runCase(c, x);
        return;
      }
      // A quick run has one rate-limit window per account: every rule's cases in turn, so that what does
      // not fit leaves no rule unjudged first, and the share the world model runs on kept for it.
      let left = 0;
      for (const x of byRuleInTurn(cases)) {
        const over = overWindow(c, x);
        if (over) {
          left++;
          leave(c, x, `left for --deep: ${over}`);
        } else await runCase(c, x);
      }
      if (left === cases.length)
        c.skipped ??= `left for --deep: every case (a quick run's window is spent down to the share kept for later checks)`;
      else if (left) c.partly(`${left} of ${cases.length} cases left for --deep (a quick run's window)`);
    },
  });
}

/** The cases in turns of one per rule: the first case of every rule, then the second, and so on. */
export function byRuleInTurn(cases: readonly Case[]): Case[] {
  const byRule = new Map<RuleId, Case[]>();
  for (const c of cases) byRule.set(c.rule, [...(byRule.get(c.rule) ?? []), c]);
  const out: Case[] = [];
  for (let i = 0; out.length < cases.length; i++)
    for (const list of byRule.values()) if (list[i]) out.push(list[i] as Case);
  return out;
}

/** What a quick run keeps of each account's window for the checks after the cases (the world model's share). */
const KEPT = 0.45;
/** Requests a precondition is taken to cost its caller (a key, a copy, a read). */
const GIVEN_COST = 3;

/** Why `c` would take an account past what the quick run may spend on cases, or null. */
function overWindow(ctx: CheckContext, c: Case): string | null {
  const limit = ctx.info.rateLimitPerMinute ?? limits().rateLimitPerMinute;
  const cost = new Map<string, number>();
  const add = (account: string, n: number) => cost.set(account, (cost.get(account) ?? 0) + n);
  if (c.as) add(c.as, 1 + (c.given ? GIVEN_COST : 0));
  for (const e of c.after ?? []) if (typeof e.as === "string" && e.as !== "case") add(e.as, 1);
  for (const [account, n] of cost) {
    const remaining = ctx.client.remaining(account) ?? limit;
    if (remaining - n < Math.ceil(limit * KEPT))
      return `the ${account} account's window is spent down to the share kept for the checks after the cases`;
  }
  return null;
}
