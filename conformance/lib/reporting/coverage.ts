/**
 * Coverage: which operations, documented status codes and contract limits the run exercised. Each test
 * file records what its exchanges touched and leaves a fragment; the global teardown merges them into
 * `reports/conformance-coverage.json` and prints the summary.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { limitCatalogue, operations, runContract } from "../description/contract.ts";
import { MACHINES } from "../description/machines.ts";
import { RULES, type RuleId, ruleOperations } from "../description/rules.ts";
import { contractSentences } from "../description/sentences.ts";
import type { Exchange } from "../http/http.ts";

export interface CoverageFragment {
  statuses: Record<string, number[]>;
  limits: string[];
  /** `machine: from→to`, as observed. */
  transitions?: string[];
  /** Rules of the description (lib/description/rules.ts) whose checks ran. */
  rules?: RuleId[];
  /** Cases (conformance/cases) by how they ended: judged, inconclusive, or left with the reason. */
  cases?: Record<string, CaseOutcome>;
}

export type CaseOutcome = { state: "judged" } | { state: "inconclusive" } | { state: "left"; why: string };

export class Coverage {
  private readonly statuses = new Map<string, Set<number>>();
  private readonly limits = new Set<string>();
  private readonly transitions = new Set<string>();
  private readonly rules = new Set<RuleId>();
  private readonly cases = new Map<string, CaseOutcome>();

  /** How a case ended: judged (its answer held or was reported), inconclusive, or left with why. */
  caseOutcome(id: string, state: CaseOutcome["state"], why = ""): void {
    this.cases.set(id, state === "left" ? { state, why } : { state });
  }

  record(ex: Exchange): void {
    if (!ex.operation) return;
    let set = this.statuses.get(ex.operation.operationId);
    if (!set) {
      set = new Set();
      this.statuses.set(ex.operation.operationId, set);
    }
    set.add(ex.status);
  }

  /** Marks a contract limit (an id from `limitCatalogue()`) as exercised at its boundary or past it. */
  limit(id: string): void {
    this.limits.add(id);
  }

  /** Marks a transition of a state machine (lib/description/machines.ts) as observed. */
  transition(machine: string, from: string, to: string): void {
    this.transitions.add(`${machine}: ${from}→${to}`);
  }

  /** Marks the rules a check covers as reached (the check ran, whatever it found). */
  reached(rules: readonly RuleId[]): void {
    for (const r of rules) this.rules.add(r);
  }

  fragment(): CoverageFragment {
    return {
      rules: [...this.rules].sort(),
      statuses: Object.fromEntries([...this.statuses].map(([k, v]) => [k, [...v].sort()])),
      limits: [...this.limits].sort(),
      transitions: [...this.transitions].sort(),
      cases: Object.fromEntries(this.cases),
    };
  }
}

export function writeFragment(dir: string, name: string, data: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name}-${process.pid}-${Math.random().toString(36).slice(2)}.json`),
    JSON.stringify(data),
  );
}

export function readFragments<T>(dir: string, prefix: string): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${prefix}-`))
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")) as T);
}

export interface CoverageReport {
  operations: { total: number; exercised: number; missing: string[] };
  statuses: {
    documented: number;
    exercised: number;
    byOperation: Record<string, { documented: number[]; seen: number[] }>;
  };
  limits: { total: number; exercised: number; missing: string[] };
  /** Per state machine: the transitions the description defines, which were seen, which were not. */
  transitions: Record<string, { seen: string[]; missing: string[] }>;
  /** Rules of the description: how many a run reached, and per operation the ones it did not. */
  rules: {
    total: number;
    reached: RuleId[];
    missing: RuleId[];
    missingByOperation: Record<string, RuleId[]>;
  };
  /**
   * The sentences of openapi.json (conformance/index): how many a check judges, how many of those a check
   * of this run reached, and how many have a stated reason instead, by the reason's code.
   */
  sentences: {
    total: number;
    judged: number;
    reached: number;
    /** Judged sentences no check of this run reached. */
    notReached: string[];
    reasons: Record<string, number>;
    /** Sentences of the contract the index has no entry for (a contract newer than the kit). */
    unindexed: string[];
    /** Every sentence, with its pointers, rules, checks, faults, and whether this run reached it. */
    each?: SentenceRow[];
  };
  /** The cases of the rules (conformance/cases): judged, inconclusive, and left with why. */
  cases: {
    total: number;
    judged: number;
    /** The judged cases by ID, so that the reports of shards join. */
    judgedIds: string[];
    inconclusive: string[];
    left: { id: string; why: string }[];
  };
}

/**
 * The sentence index (conformance/index/) as the report reads it: each sentence's code (`judged`, or the
 * reason nothing judges it) and the rules that judge it. Handed in, so that the kit's library stays below
 * the index built on it.
 */
export type SentenceIndex = ReadonlyMap<string, SentenceEntry>;

/** One sentence's entry as the report reads it; `checks`, when the caller knows them, judge its rules. */
export interface SentenceEntry {
  readonly code: string;
  readonly rules?: readonly string[];
  readonly faults?: readonly string[];
  readonly checks?: readonly string[];
  /** Why nothing judges it (for a code other than `judged`). */
  readonly why?: string;
}

/** A sentence of openapi.json and everything that judges it: one look-up from a sentence to its proof. */
export interface SentenceRow {
  text: string;
  /** Where it stands in openapi.json (a sentence said in several places has each). */
  pointers: string[];
  /** `judged`, or the code of the reason nothing can judge it; `unindexed` where the index has no entry. */
  code: string;
  rules: string[];
  checks: string[];
  faults: string[];
  why?: string;
  /** A check of this run judged one of its rules. */
  reached: boolean;
}

export function mergeCoverage(fragments: readonly CoverageFragment[], index: SentenceIndex): CoverageReport {
  const seen = new Map<string, Set<number>>();
  const limitsSeen = new Set<string>();
  const transitionsSeen = new Set<string>();
  const rulesReached = new Set<RuleId>();
  const cases = new Map<string, CaseOutcome>();
  for (const f of fragments) {
    // A case judged anywhere (a shard, a check) is judged; left or inconclusive only if nowhere better.
    for (const [id, o] of Object.entries(f.cases ?? {})) {
      const had = cases.get(id);
      if (!had || rank(o) > rank(had)) cases.set(id, o);
    }
    for (const r of f.rules ?? []) rulesReached.add(r);
    for (const t of f.transitions ?? []) transitionsSeen.add(t);
    for (const [id, statuses] of Object.entries(f.statuses)) {
      const s = seen.get(id) ?? new Set<number>();
      for (const st of statuses) s.add(st);
      seen.set(id, s);
    }
    for (const l of f.limits) limitsSeen.add(l);
  }
  const byOperation: CoverageReport["statuses"]["byOperation"] = {};
  let documented = 0;
  let exercised = 0;
  for (const o of operations()) {
    const s = seen.get(o.operationId) ?? new Set<number>();
    byOperation[o.operationId] = { documented: o.statuses, seen: [...s].sort((a, b) => a - b) };
    documented += o.statuses.length;
    exercised += o.statuses.filter((st) => s.has(st)).length;
  }
  const catalogue = limitCatalogue();
  return {
    operations: {
      total: operations().length,
      exercised: operations().filter((o) => seen.has(o.operationId)).length,
      missing: operations()
        .filter((o) => !seen.has(o.operationId))
        .map((o) => o.operationId),
    },
    statuses: { documented, exercised, byOperation },
    limits: {
      total: catalogue.length,
      exercised: catalogue.filter((l) => limitsSeen.has(l.id)).length,
      missing: catalogue.filter((l) => !limitsSeen.has(l.id)).map((l) => l.id),
    },
    rules: ruleCoverage(rulesReached),
    cases: caseCoverage(cases),
    sentences: sentenceCoverage(rulesReached, index),
    transitions: Object.fromEntries(
      Object.entries(MACHINES).map(([machine, all]) => [
        machine,
        {
          seen: all.filter((t) => transitionsSeen.has(`${machine}: ${t}`)),
          missing: all.filter((t) => !transitionsSeen.has(`${machine}: ${t}`)),
        },
      ]),
    ),
  };
}

const rank = (o: CaseOutcome) => (o.state === "judged" ? 2 : o.state === "inconclusive" ? 1 : 0);

function caseCoverage(cases: ReadonlyMap<string, CaseOutcome>): CoverageReport["cases"] {
  const all = [...cases];
  return {
    total: all.length,
    judged: all.filter(([, o]) => o.state === "judged").length,
    judgedIds: all.filter(([, o]) => o.state === "judged").map(([id]) => id),
    inconclusive: all.filter(([, o]) => o.state === "inconclusive").map(([id]) => id),
    left: all.flatMap(([id, o]) => (o.state === "left" ? [{ id, why: o.why }] : [])),
  };
}

function ruleCoverage(reached: ReadonlySet<string>): CoverageReport["rules"] {
  const ids = Object.keys(RULES) as RuleId[];
  const missing = ids.filter((id) => !reached.has(id));
  const all = operations().map((o) => o.operationId);
  const missingByOperation: Record<string, RuleId[]> = {};
  for (const id of missing)
    for (const op of ruleOperations(id, all))
      missingByOperation[op] = [...(missingByOperation[op] ?? []), id];
  return { total: ids.length, reached: ids.filter((id) => reached.has(id)), missing, missingByOperation };
}

function sentenceCoverage(reached: ReadonlySet<string>, index: SentenceIndex): CoverageReport["sentences"] {
  const pointers = new Map<string, string[]>();
  for (const s of contractSentences(runContract().document))
    pointers.set(s.text, [...(pointers.get(s.text) ?? []), s.pointer]);
  const reasons: Record<string, number> = {};
  const notReached: string[] = [];
  const unindexed: string[] = [];
  const each: SentenceRow[] = [];
  let judged = 0;
  for (const [text, at] of pointers) {
    const e = index.get(text);
    const rules = [...(e?.rules ?? [])];
    const hit = rules.some((r) => reached.has(r));
    const row: SentenceRow = {
      text,
      pointers: at,
      code: e?.code ?? "unindexed",
      rules,
      checks: [...(e?.checks ?? [])],
      faults: [...(e?.faults ?? [])],
      reached: hit,
    };
    if (e?.why) row.why = e.why;
    each.push(row);
    if (!e) unindexed.push(text);
    else if (e.code !== "judged") reasons[e.code] = (reasons[e.code] ?? 0) + 1;
    else {
      judged++;
      if (!hit) notReached.push(text);
    }
  }
  const total = pointers.size;
  return { total, judged, reached: judged - notReached.length, notReached, reasons, unindexed, each };
}

/**
 * Joins the coverage reports of several runs (the shards of one CI job) into one: an operation, status,
 * limit or transition counts as exercised when any run exercised it.
 */
export function joinCoverage(reports: readonly CoverageReport[], index: SentenceIndex): CoverageReport {
  const catalogue = limitCatalogue();
  const fragment: CoverageFragment = { statuses: {}, limits: [], transitions: [], rules: [], cases: {} };
  for (const r of reports) {
    const c = r.cases ?? { left: [], inconclusive: [], judgedIds: [] };
    const into = fragment.cases as Record<string, CaseOutcome>;
    for (const l of c.left) into[l.id] ??= { state: "left", why: l.why };
    for (const id of c.inconclusive) if (into[id]?.state !== "judged") into[id] = { state: "inconclusive" };
    for (const id of c.judgedIds) into[id] = { state: "judged" };
    for (const [id, s] of Object.entries(r.statuses.byOperation))
      if (s.seen.length) fragment.statuses[id] = [...new Set([...(fragment.statuses[id] ?? []), ...s.seen])];
    const missing = new Set(r.limits.missing);
    fragment.limits.push(...catalogue.filter((l) => !missing.has(l.id)).map((l) => l.id));
    fragment.rules?.push(...(r.rules?.reached ?? []));
    for (const [machine, t] of Object.entries(r.transitions ?? {}))
      fragment.transitions?.push(...t.seen.map((x) => `${machine}: ${x}`));
  }
  return mergeCoverage([fragment], index);
}

function notReached(missing: readonly string[]): string {
  if (missing.length === 0) return "";
  const more =
    missing.length > 8 ? `, and ${missing.length - 8} more (reports/conformance-coverage.json)` : "";
  return `; not reached: ${missing.slice(0, 8).join(", ")}${more}`;
}

function sentenceLine(s: CoverageReport["sentences"]): string {
  const reasons = Object.entries(s.reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code} ${n}`)
    .join(", ");
  const unindexed = s.unindexed.length ? `; ${s.unindexed.length} not in the kit's index` : "";
  return `${s.reached}/${s.judged} judged sentences reached, of ${s.total} (the others: ${reasons})${unindexed}`;
}

function caseLine(c: CoverageReport["cases"]): string {
  if (c.total === 0) return "none run";
  const byWhy = new Map<string, number>();
  for (const l of c.left) byWhy.set(l.why, (byWhy.get(l.why) ?? 0) + 1);
  const left = [...byWhy]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([why, n]) => `${n} ${why}`)
    .join("; ");
  const unjudged = c.inconclusive.length ? `, ${c.inconclusive.length} inconclusive` : "";
  return `${c.judged}/${c.total} judged${unjudged}${c.left.length ? `; left ${c.left.length}: ${left}` : ""}`;
}

export function formatCoverage(r: CoverageReport): string {
  const pct = (a: number, b: number) => (b === 0 ? "100" : ((100 * a) / b).toFixed(0));
  return [
    "Conformance coverage",
    `  operations:          ${r.operations.exercised}/${r.operations.total} (${pct(r.operations.exercised, r.operations.total)}%)`,
    `  documented statuses: ${r.statuses.exercised}/${r.statuses.documented} (${pct(r.statuses.exercised, r.statuses.documented)}%)`,
    `  contract limits:     ${r.limits.exercised}/${r.limits.total} (${pct(r.limits.exercised, r.limits.total)}%)`,
    `  description rules:   ${r.rules.reached.length}/${r.rules.total} (${pct(r.rules.reached.length, r.rules.total)}%)${notReached(r.rules.missing)}`,
    `  contract sentences:  ${sentenceLine(r.sentences)}`,
    `  rule cases:          ${caseLine(r.cases)}`,
    ...(r.operations.missing.length
      ? [`  operations() not exercised: ${r.operations.missing.join(", ")}`]
      : []),
    "  state machines (transitions seen):",
    ...Object.entries(r.transitions).map(
      ([m, t]) =>
        `    ${m}: ${t.seen.length}/${t.seen.length + t.missing.length}${t.missing.length ? ` (not seen: ${t.missing.join(", ")})` : ""}`,
    ),
  ].join("\n");
}
