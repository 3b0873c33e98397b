/**
 * Runs cases as a check: for each, its precondition, its request, its answer judged against every answer
 * the description allows, the effects read back, and what a success changed put back before the next case
 * runs. A case the target cannot have (a handle its config lacks, a read-only run, the simulator's control
 * plane) is left, naming why; a case whose precondition could not be made is inconclusive, never passed.
 */
import { op } from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import type { Credentials, Exchange } from "../lib/http/http.ts";
import { type CheckContext, type CheckDef, check, MissingHandle } from "../lib/running/context.ts";
import { type Answer, answersOf, type Case, type CaseWorld } from "./case.ts";
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
  const cleanups: (() => Promise<unknown>)[] = [];
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
    for (const fn of cleanups) {
      try {
        await fn();
      } catch (e) {
        ctx.leftover(`${c.id}: ${(e as Error).message}`);
      }
    }
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

/** The cases of one group as a check: it declares every rule its cases judge. */
export function caseCheck(name: string, cases: readonly Case[], title?: string): CheckDef {
  const rules = [...new Set(cases.flatMap((c) => [c.rule, ...(c.also ?? [])]))] as RuleId[];
  return check(name, rules, {
    title: title ?? `${cases.length} cases: ${rules.join(", ")}`,
    async run(ctx) {
      for (const c of cases) await runCase(ctx as CheckContext, c);
    },
  });
}
