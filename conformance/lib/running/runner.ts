/**
 * The kit's own runner: every check is a plain async function over a CheckContext, so a run needs no test
 * framework. It filters and shards the checks, runs them one at a time against the target (they share its
 * state), prints a line per check, and writes the reports, JUnit XML included when asked for.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type PaceMemory, type Silence, TargetDownError } from "../http/http.ts";
import type { TargetInfo } from "../http/target.ts";
import { type Plan, planRun, whatDeepTakes } from "../planning/budget.ts";
import { readWindows } from "../planning/windows.ts";
import { type Paint, paint } from "../reporting/colour.ts";
import { Coverage, type SentenceIndex } from "../reporting/coverage.ts";
import { renderHtmlReport } from "../reporting/html-report.ts";
import { escapeMarkup as xml } from "../reporting/markup.ts";
import { dedupe, formatViolations, type Violation } from "../reporting/report.ts";
import { type CheckDef, runCheck } from "./context.ts";
import { finishRun, type RunResults } from "./finish.ts";
import { type Skip, skipOf } from "./skips.ts";

export interface Reporter {
  name: "default" | "verbose" | "dot" | "junit" | "json" | "html";
  file?: string;
}

export interface SuiteOptions {
  checks: readonly CheckDef[];
  /** The sentence index the coverage report counts sentences by (conformance/index/). */
  sentences: SentenceIndex;
  /** Runs only the checks whose `name: title` matches (`-t`, `--only`). */
  pattern?: RegExp | null;
  /** Leaves out the checks whose `name: title` matches (`--skip`). */
  skip?: RegExp | null;
  /** Shard `index` (1-based) of `count`: every count-th check. */
  shard?: { index: number; count: number } | null;
  reporters?: readonly Reporter[];
  print?: (line: string) => void;
  /** Fail the run (exit 3) when something was met and not judged either way (`--strict`). */
  strict?: boolean;
  /**
   * How much of the target the run may spend (`--budget`, `--time-budget`): once the requests sent or the
   * time taken reach it, no further check starts; those left are reported as skipped, with the budget.
   * `since` (epoch ms, default: when runChecks is called) is when the budget began: the CLI's start.
   */
  budget?: { requests?: number | null; ms?: number | null; since?: number };
}

interface Outcome {
  def: CheckDef;
  ms: number;
  /** When it started (epoch ms); checks run side by side overlap, and reports' times count the overlap once. */
  startedAt?: number;
  /** Requests the check sent, per key (what it spent of each key's rate limit). */
  requests: Record<string, number>;
  violations: Violation[];
  skipped: string | null;
  /** The user chose this skip (--read-only, --no-reset): it does not make the run incomplete. */
  askedFor?: boolean;
  error: string | null;
  /** The check met a target that stopped answering (TargetDownError): the run stops there. */
  down?: boolean;
  /** Why the target was taken for gone. */
  downWhy?: string;
  /** The run's time budget ran out while the check was under way: why, and it ended there. */
  cut?: string;
}

/**
 * How a run ended. Exit status: 0 every check that ran held and at most half of the checks chosen were
 * skipped for reasons the user did not ask for; 1 a violation; 2 the target stopped answering (the run
 * ended there; the reports hold what was checked); 3 incomplete: nothing was checked, or more than half of
 * the chosen checks were skipped (a budget, a deployment's plan, a contract without their operations), so
 * the run proves too little to be a pass.
 */
export interface RunSummary {
  chosen: number;
  passed: number;
  failed: number;
  skipped: number;
  exitCode: 0 | 1 | 2 | 3;
  /** Why the run is not a pass when no check failed (exit 3). */
  incomplete: string | null;
  /** What the checks met and could not judge either way. */
  inconclusive: number;
}

/** The checks a run takes: `pattern` (-t, --only) and `skip` (--skip) over `name: title`, then the shard. */
export function chooseChecks(o: Pick<SuiteOptions, "checks" | "pattern" | "skip" | "shard">): CheckDef[] {
  const shard = o.shard;
  return o.checks
    .filter((c) => !o.pattern || o.pattern.test(`${c.name}: ${c.title}`))
    .filter((c) => !o.skip?.test(`${c.name}: ${c.title}`))
    .filter((_c, i) => !shard || i % shard.count === shard.index - 1);
}

/** What the target's world or config lacks for the chosen checks: each handle or field, and who needs it. */
export function lackingNeeds(chosen: readonly CheckDef[], info: TargetInfo): Map<string, string[]> {
  const lacking = new Map<string, string[]>();
  for (const def of chosen) {
    const skip = skipOf(def, info);
    if (skip?.code !== "missing") continue;
    for (const need of skip.missing) lacking.set(need, [...(lacking.get(need) ?? []), def.name]);
  }
  return lacking;
}

/** Runs the checks and writes the reports; resolves to how the run ended. */
export async function runChecks(given: TargetInfo, o: SuiteOptions): Promise<RunSummary> {
  const startedAt = Date.now();
  // The time budget is the run's: every request, wait and poll of every check spends from it. The run
  // ends within it, so checks stop early enough for the grace a check under way is given and the reports.
  const ms = o.budget?.ms;
  const since = o.budget?.since ?? startedAt;
  const deadline = ms != null ? since + Math.max(ms / 2, ms - GRACE_MS - WRAP_UP_MS) : null;
  const info: TargetInfo = { ...given, deadline };
  const print = o.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const c = paint();
  const reporters = o.reporters?.length ? o.reporters : [{ name: "default" as const }];
  const dots = reporters.some((r) => r.name === "dot");
  const chosen = chooseChecks(o);
  const coverage = new Coverage();
  const results: RunResults = {
    violations: [],
    coverage: [],
    skipped: [],
    leftovers: [],
    partial: [],
    consumed: [],
    inconclusive: [],
  };
  const outcomes: Outcome[] = [];
  const pace: PaceMemory = new Map();
  const silence: Silence = { since: null };
  let spentRequests = 0;
  const done = (outcome: Outcome) => {
    spentRequests += Object.values(outcome.requests).reduce((a, b) => a + b, 0);
    outcomes.push(outcome);
    if (dots)
      process.stdout.write(
        outcome.error || outcome.violations.length ? c.bad("x") : outcome.skipped ? c.skip("-") : c.ok("."),
      );
    else print(lineOf(outcome, c));
  };
  // Each violation as it is found (once per rule and check), before its check ends or shrinks it; the
  // dot reporter keeps to its one character per check.
  // What each check has announced: a check the budget cuts short keeps what it found.
  const announced = new Map<string, Violation[]>();
  const found = (v: Violation) => {
    announced.set(v.check, [...(announced.get(v.check) ?? []), v]);
    if (!dots)
      print(
        c.bad(
          `  ! found by ${v.check}: ${v.ruleId ?? v.rule}: ${v.message.split("\n")[0]?.slice(0, 240)} (replay: --seed ${info.seed} --only '^${v.foundBy ?? v.check}:')`,
        ),
      );
  };
  // A check the budget's end finds under way is cut short there, whatever it waits on.
  const bounded = (def: CheckDef): Promise<Outcome> => {
    const run = runOne(def, info, coverage, results, { pace, silence }, found);
    if (deadline === null) return run;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expiry = new Promise<Outcome>((resolve) => {
      timer = setTimeout(
        () => resolve(cutShort(def, announced.get(def.name) ?? [], results)),
        Math.max(0, deadline - Date.now()) + GRACE_MS,
      );
    });
    return Promise.race([run, expiry]).finally(() => clearTimeout(timer));
  };
  // A quick deployment run fits into what each account's window has left now, not a full one.
  const left = info.quick && info.kind === "deployment" ? await readWindows(info, pace) : new Map();
  const plan = planRun(chosen, info, left);
  if (plan.budget !== null) {
    const short = Object.entries(plan.short).map(([a, n]) => `${a} ${n}`);
    print(
      `plan: ${plan.sequential.length + plan.concurrent.length} checks within ${plan.budget} requests per account (one rate-limit window${short.length ? `; spent in part before the run, left: ${short.join(", ")}` : ""}); ${plan.deferred.length} left for --deep`,
    );
  }
  // Waits in real time on copies of their own: they run beside the rest.
  const beside = Promise.all(plan.concurrent.map((def) => bounded(def).then(done)));
  let down: Outcome | undefined;
  const notRun = (def: CheckDef) => outcomes.push(skippedFor(def, NOT_RUN, results));
  for (const def of plan.sequential) {
    if (down) {
      notRun(def);
      continue;
    }
    const over = overBudget(o.budget, spentRequests, deadline);
    const outcome = over ? skippedFor(def, over, results) : await bounded(def);
    done(outcome);
    if (outcome.down) down = outcome;
  }
  await beside;
  down ??= outcomes.find((x) => x.down);
  for (const d of plan.deferred) down ? notRun(d.def) : done(skippedFor(d.def, d.reason, results));
  // Reports list the checks in the kit's order, however the plan ran them.
  outcomes.sort((a, b) => chosen.indexOf(a.def) - chosen.indexOf(b.def));
  if (dots) print("");
  results.coverage.push(coverage.fragment());
  const failed = outcomes.filter((x) => x.error || x.violations.length);
  const skipped = outcomes.filter((x) => x.skipped && !failed.includes(x)).length;
  for (const f of failed)
    print(`\n${c.bad(`✗ ${f.def.name}`)}\n${f.error ?? formatViolations(f.violations)}`);
  const passed = chosen.length - failed.length - skipped;
  print(
    `\n${chosen.length} checks: ${passed} passed, ${failed.length} failed, ${skipped} skipped (seed ${info.seed})`,
  );
  const unjudged = results.inconclusive.length;
  if (unjudged)
    print(
      `${unjudged} finding${unjudged === 1 ? " was" : "s were"} inconclusive: met and not judged either way (listed below; --strict fails the run on them)`,
    );
  // What the time budget cut short or left unstarted: the run ends without a verdict on them (exit 2).
  const spent = outcomes.filter((x) => x.cut || x.skipped?.startsWith(BUDGET_SPENT));
  const incomplete = failed.length
    ? null
    : (incompleteness(outcomes, chosen.length) ??
      (o.strict && unjudged ? `${unjudged} inconclusive finding(s) under --strict` : null));
  const deep = whatDeepTakes(plan);
  if (deep) print(deep);
  const stop = stopLine({ outcomes, down, spent, failed: failed.length, incomplete, plan, budget: o.budget });
  if (stop) print(c.bad(stop));
  await writeReports(reporters, outcomes, info, results, print, o.sentences);
  const exitCode = down ? 2 : failed.length ? 1 : spent.length ? 2 : incomplete ? 3 : 0;
  return {
    chosen: chosen.length,
    passed,
    failed: failed.length,
    skipped,
    exitCode,
    incomplete,
    inconclusive: unjudged,
  };
}

/** Why the run stopped short of a verdict (the target went away, the budget ran out, too little ran), or null. */
function stopLine(r: {
  outcomes: Outcome[];
  down: Outcome | undefined;
  spent: Outcome[];
  failed: number;
  incomplete: string | null;
  plan: Plan;
  budget: SuiteOptions["budget"];
}): string | null {
  if (r.down) {
    const left = r.outcomes.filter((x) => x.skipped === NOT_RUN).length;
    const why = (r.down.downWhy ?? "").replace(/^.*?the target stopped answering: /s, "");
    return `stopped: the target stopped answering during ${r.down.def.name} (${why}); ${left} check${left === 1 ? " was" : "s were"} not run, and the reports hold what was checked (exit 2)`;
  }
  if (r.spent.length) {
    const cut = r.outcomes.filter((x) => x.cut).map((x) => x.def.name);
    return `stopped: the run's time budget (${Math.round((r.budget?.ms ?? 0) / 1000)} s, --time-budget) ran out${cut.length ? `; cut short: ${cut.join(", ")}` : ""}; ${r.spent.length - cut.length} check(s) not started; the reports hold what was checked (exit ${r.failed ? 1 : 2})`;
  }
  if (!r.incomplete) return null;
  // Windows others spent before the run are the likely cause: say what would give it a whole one.
  const hint = Object.keys(r.plan.short).length
    ? "; the accounts' windows were spent in part before it began: run it again a minute after other traffic on these keys, or with --deep, which waits for windows"
    : "";
  return `incomplete: ${r.incomplete}${hint}; this run is not a pass (exit 3)`;
}

/** The JUnit, JSON and HTML reports the reporters ask for, and the coverage and violation files. */
async function writeReports(
  reporters: readonly Reporter[],
  outcomes: Outcome[],
  info: TargetInfo,
  results: RunResults,
  print: (line: string) => void,
  sentences: SentenceIndex,
): Promise<void> {
  // One account of the checks for the JSON and HTML reports alike.
  const report = jsonOf(outcomes, info);
  for (const r of reporters) if (r.file && r.name === "junit") save(r.file, junit(outcomes));
  for (const r of reporters) if (r.file && r.name === "json") save(r.file, JSON.stringify(report, null, 2));
  const coverageReport = await finishRun(info, results, print, sentences);
  for (const r of reporters)
    if (r.file && r.name === "html")
      save(
        r.file,
        renderHtmlReport({
          target: info.baseUrl,
          kind: info.kind,
          seed: info.seed,
          finishedAt: new Date().toISOString(),
          checks: report.checks,
          violations: dedupe(results.violations),
          inconclusive: results.inconclusive,
          coverage: coverageReport,
        }),
      );
}

/**
 * Why a run without a failure still proves too little: nothing chosen or nothing run, or more than half of
 * the checks it was to run skipped for reasons the user did not choose. Skips the user asked for
 * (--read-only, --no-reset) count neither way; a subset picked with -t, --only or --skip is the run's whole.
 */
function incompleteness(outcomes: readonly Outcome[], chosen: number): string | null {
  if (chosen === 0) return "no check was chosen (-t, --only, --skip or --shard left none)";
  const expected = outcomes.filter((x) => !x.askedFor).length;
  const unasked = outcomes.filter((x) => x.skipped && !x.askedFor).length;
  if (expected === 0) return "every chosen check was skipped at the user's request: nothing was checked";
  if (unasked * 2 > expected)
    return `${unasked} of the ${expected} checks it was to run were skipped (more than half)`;
  return null;
}

async function runOne(
  def: CheckDef,
  info: TargetInfo,
  coverage: Coverage,
  results: RunResults,
  shared: { pace: PaceMemory; silence: Silence },
  found?: (v: Violation) => void,
): Promise<Outcome> {
  const started = Date.now();
  const skip: Skip | null = skipOf(def, info);
  const requests: Record<string, number> = {};
  if (skip) {
    results.skipped.push({ check: def.name, reason: skip.reason });
    const askedFor = skip.code === "asked";
    return { def, ms: 0, requests, violations: [], skipped: skip.reason, askedFor, error: null };
  }
  coverage.reached(def.rules);
  let outOfTime: string | null = null;
  let cut: string | null = null;
  const options = {
    ...shared,
    onCut: (r: string) => (cut = `cut short: ${r}`),
    onRequests: (byKey: ReadonlyMap<string, number>) => Object.assign(requests, Object.fromEntries(byKey)),
    onSkip: (r: string) => (outOfTime = r),
    onLeftovers: (what: string[]) =>
      results.leftovers.push(...what.map((w) => ({ check: def.name, what: w }))),
    onPartial: (what: string[]) => results.partial.push(...what.map((w) => ({ check: def.name, what: w }))),
    onConsumed: (what: string[]) => results.consumed.push(...what.map((w) => ({ check: def.name, what: w }))),
    onInconclusive: (what: string[]) =>
      results.inconclusive.push(...what.map((w) => ({ check: def.name, what: w }))),
    ...(found ? { onFound: found } : {}),
  };
  try {
    const violations = dedupe(await runCheck(def, info, coverage, options)).map((v) => ({
      ...v,
      seed: v.seed ?? info.seed,
    }));
    results.violations.push(...violations);
    // Never passed: what the check waited for did not happen within its time, or the run's budget ran out.
    const unfinished: string | null = cut ?? outOfTime;
    if (!violations.length && unfinished) results.skipped.push({ check: def.name, reason: unfinished });
    return {
      def,
      ms: Date.now() - started,
      startedAt: started,
      requests,
      violations,
      skipped: violations.length ? null : unfinished,
      error: null,
      ...(cut ? { cut } : {}),
    };
  } catch (e) {
    const partial = (e as { violations?: Violation[] }).violations ?? [];
    results.violations.push(...partial.map((v) => ({ ...v, seed: v.seed ?? info.seed })));
    // runCheck hands on the error it caught (its message prefixed), so the class tells.
    const down = e instanceof TargetDownError;
    // The target's going away under a check is no verdict on it: neither passed nor failed.
    const stopped = down && partial.length === 0 ? STOPPED_UNDER_WAY : null;
    if (stopped) results.skipped.push({ check: def.name, reason: stopped });
    return {
      def,
      ms: Date.now() - started,
      startedAt: started,
      requests,
      violations: partial,
      skipped: stopped,
      error: stopped ? null : (e as Error).message,
      ...(down ? { down, downWhy: (e as Error).message } : {}),
    };
  }
}

const NOT_RUN = "not run: the run stopped where the target went away";
const STOPPED_UNDER_WAY = "stopped under way: the target stopped answering";
/** How a check not started for the time budget is said (overBudget), and known again. */
const BUDGET_SPENT = "the run's time budget";
/** How long past the budget's end a check under way is given to stop by itself before it is cut short. */
const GRACE_MS = 2_000;
/** What the run keeps of its time budget for ending: cleanups of checks cut short, writing the reports. */
const WRAP_UP_MS = 1_500;

/** A check the budget's end found under way: what it had found stands; it is neither passed nor finished. */
function cutShort(def: CheckDef, found: Violation[], results: RunResults): Outcome {
  const reason = "cut short: the run's time budget ran out while it was under way";
  results.violations.push(...found);
  results.skipped.push({ check: def.name, reason });
  return {
    def,
    ms: 0,
    requests: {},
    violations: found,
    skipped: found.length ? null : reason,
    error: null,
    cut: reason,
  };
}

function overBudget(
  budget: SuiteOptions["budget"],
  requests: number,
  deadline: number | null,
): string | null {
  if (budget?.requests != null && requests >= budget.requests)
    return `the run's request budget (--budget ${budget.requests}) is spent: ${requests} requests`;
  if (budget?.ms != null && deadline !== null && Date.now() >= deadline)
    return `${BUDGET_SPENT} (--time-budget ${Math.round(budget.ms / 1000)}s) is spent`;
  return null;
}

function skippedFor(def: CheckDef, reason: string, results: RunResults): Outcome {
  results.skipped.push({ check: def.name, reason });
  return { def, ms: 0, requests: {}, violations: [], skipped: reason, error: null };
}

function lineOf(o: Outcome, c: Paint): string {
  if (o.error || o.violations.length)
    return c.bad(
      `✗ ${o.def.name}: ${o.error ? "could not finish" : `${o.violations.length} violation(s)`} (${o.ms} ms)`,
    );
  if (o.skipped) return c.skip(`↓ ${o.def.name} [skipped: ${o.skipped}]`);
  return `${c.ok("✓")} ${o.def.name} (${o.ms} ms, ${spent(o.requests)})`;
}

/** What a check spent of the keys' budgets: `42 requests (owner 30, outsider 12)`. */
function spent(requests: Record<string, number>): string {
  const entries = Object.entries(requests).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((n, [, k]) => n + k, 0);
  if (total === 0) return "0 requests";
  const by = entries.map(([key, n]) => `${key} ${n}`).join(", ");
  return `${total} request${total === 1 ? "" : "s"}${entries.length > 1 || entries[0]?.[0] !== "none" ? ` (${by})` : ""}`;
}

function save(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** JUnit XML: one test case a check, named `name: title` (stable across runs), in a suite per group. */
export function junit(outcomes: readonly Outcome[]): string {
  const groups = new Map<string, Outcome[]>();
  for (const o of outcomes) {
    const g = o.def.name.split("/")[0] as string;
    groups.set(g, [...(groups.get(g) ?? []), o]);
  }
  const suites = [...groups].map(([g, list]) => {
    const failures = list.filter((o) => o.error || o.violations.length).length;
    const skipped = list.filter((o) => o.skipped).length;
    const cases = list.map((o) => {
      const head = `    <testcase classname="conformance.${xml(g)}" name="${xml(`${o.def.name}: ${o.def.title}`)}" time="${(o.ms / 1000).toFixed(3)}"`;
      if (o.error || o.violations.length) {
        const text = o.error ?? formatViolations(o.violations);
        return `${head}>\n      <failure message="${xml(text.split("\n")[0] ?? "")}">${xml(text)}</failure>\n    </testcase>`;
      }
      if (o.skipped) return `${head}>\n      <skipped message="${xml(o.skipped)}"/>\n    </testcase>`;
      return `${head}/>`;
    });
    const time = (span(list) / 1000).toFixed(3);
    return `  <testsuite name="${xml(g)}" tests="${list.length}" failures="${failures}" skipped="${skipped}" time="${time}">\n${cases.join("\n")}\n  </testsuite>`;
  });
  // Totals on the root too: CI annotators read them from there.
  const failed = outcomes.filter((o) => o.error || o.violations.length).length;
  const skippedAll = outcomes.filter((o) => o.skipped).length;
  const totalTime = (span(outcomes) / 1000).toFixed(3);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance" tests="${outcomes.length}" failures="${failed}" skipped="${skippedAll}" time="${totalTime}">\n${suites.join("\n")}\n</testsuites>\n`;
}

/** The time the checks took together: their intervals' union, so checks that ran side by side count once. */
function span(outcomes: readonly Outcome[]): number {
  const runs = outcomes
    .filter((o) => o.ms > 0)
    .map((o) => [o.startedAt ?? 0, (o.startedAt ?? 0) + o.ms] as const)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of runs) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

function jsonOf(outcomes: readonly Outcome[], info: TargetInfo) {
  return {
    target: info.baseUrl,
    seed: info.seed,
    checks: outcomes.map((o) => ({
      name: o.def.name,
      title: o.def.title,
      status: (o.error || o.violations.length ? "failed" : o.skipped ? "skipped" : "passed") as
        | "failed"
        | "skipped"
        | "passed",
      ms: o.ms,
      requests: o.requests,
      ...(o.skipped ? { skipped: o.skipped } : {}),
      ...(o.error ? { error: o.error } : {}),
      violations: o.violations,
    })),
  };
}
