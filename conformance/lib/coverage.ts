/**
 * Coverage: which operations, documented status codes and contract limits the run exercised. Each test
 * file records what its exchanges touched and leaves a fragment; the global teardown merges them into
 * `reports/conformance-coverage.json` and prints the summary.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { limitCatalogue, operations } from "./contract.ts";
import type { Exchange } from "./http.ts";

export interface CoverageFragment {
  statuses: Record<string, number[]>;
  limits: string[];
}

export class Coverage {
  private readonly statuses = new Map<string, Set<number>>();
  private readonly limits = new Set<string>();

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

  fragment(): CoverageFragment {
    return {
      statuses: Object.fromEntries([...this.statuses].map(([k, v]) => [k, [...v].sort()])),
      limits: [...this.limits].sort(),
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
}

export function mergeCoverage(fragments: readonly CoverageFragment[]): CoverageReport {
  const seen = new Map<string, Set<number>>();
  const limitsSeen = new Set<string>();
  for (const f of fragments) {
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
  for (const o of operations) {
    const s = seen.get(o.operationId) ?? new Set<number>();
    byOperation[o.operationId] = { documented: o.statuses, seen: [...s].sort((a, b) => a - b) };
    documented += o.statuses.length;
    exercised += o.statuses.filter((st) => s.has(st)).length;
  }
  const catalogue = limitCatalogue();
  return {
    operations: {
      total: operations.length,
      exercised: operations.filter((o) => seen.has(o.operationId)).length,
      missing: operations.filter((o) => !seen.has(o.operationId)).map((o) => o.operationId),
    },
    statuses: { documented, exercised, byOperation },
    limits: {
      total: catalogue.length,
      exercised: catalogue.filter((l) => limitsSeen.has(l.id)).length,
      missing: catalogue.filter((l) => !limitsSeen.has(l.id)).map((l) => l.id),
    },
  };
}

export function formatCoverage(r: CoverageReport): string {
  const pct = (a: number, b: number) => (b === 0 ? "100" : ((100 * a) / b).toFixed(0));
  return [
    "Conformance coverage",
    `  operations:          ${r.operations.exercised}/${r.operations.total} (${pct(r.operations.exercised, r.operations.total)}%)`,
    `  documented statuses: ${r.statuses.exercised}/${r.statuses.documented} (${pct(r.statuses.exercised, r.statuses.documented)}%)`,
    `  contract limits:     ${r.limits.exercised}/${r.limits.total} (${pct(r.limits.exercised, r.limits.total)}%)`,
    ...(r.operations.missing.length
      ? [`  operations not exercised: ${r.operations.missing.join(", ")}`]
      : []),
  ].join("\n");
}
