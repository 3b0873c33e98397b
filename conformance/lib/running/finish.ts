/**
 * The end of a run, whichever runner made it: the simulator's rate limit put back, the reports written
 * (`reports/conformance-violations.json`, `reports/conformance-coverage.json`) and the summary printed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deleteSandbox, setSimRateLimit, type TargetInfo } from "../http/target.ts";
import type { CoverageFragment, CoverageReport, SentenceIndex } from "../reporting/coverage.ts";
import { formatCoverage, mergeCoverage } from "../reporting/coverage.ts";
import { reportsDir } from "../reporting/paths.ts";
import { dedupe, type Violation } from "../reporting/report.ts";

export interface RunResults {
  violations: Violation[];
  coverage: CoverageFragment[];
  skipped: { check: string; reason: string }[];
  leftovers: { check: string; what: string }[];
  /** What checks left unjudged to fit a quick run (`--deep` judges it). */
  partial: { check: string; what: string }[];
  /** What checks used up on purpose, as the config allowed: to be made again before the next run. */
  consumed: { check: string; what: string }[];
  /** What checks met and could not judge either way (never a pass; `--strict` fails the run on it). */
  inconclusive: { check: string; what: string }[];
}

/** `sentences`: the sentence index the coverage report counts sentences by (conformance/index/). */
export async function finishRun(
  info: TargetInfo,
  results: RunResults,
  print: (line: string) => void,
  sentences: SentenceIndex,
): Promise<CoverageReport> {
  if (info.kind === "simulator" && info.originalRateLimit !== null)
    await setSimRateLimit(info.controlBase, info.controlToken, info.originalRateLimit).catch(() => {});
  if (info.sandbox?.made) {
    const gone = await deleteSandbox(info).catch(() => false);
    print(
      `\nsandbox ${info.sandbox.id}: ${gone ? "deleted" : "could not be deleted; it stays until its TTL"}`,
    );
  }
  const violations = dedupe(results.violations);
  const coverage = mergeCoverage(results.coverage, sentences);
  const { skipped, leftovers, partial, consumed, inconclusive } = results;
  mkdirSync(reportsDir(), { recursive: true });
  const meta = {
    target: info.baseUrl,
    kind: info.kind,
    seed: info.seed,
    finishedAt: new Date().toISOString(),
  };
  writeFileSync(
    join(reportsDir(), "conformance-violations.json"),
    JSON.stringify({ ...meta, violations, inconclusive, skipped, partial, leftovers, consumed }, null, 2),
  );
  writeFileSync(
    join(reportsDir(), "conformance-coverage.json"),
    JSON.stringify({ ...meta, ...coverage }, null, 2),
  );
  print(`\n${formatCoverage(coverage)}`);
  if (skipped.length) {
    // One line per reason, so that what the config lacks, or what needs the simulator, is said once.
    const byReason = new Map<string, string[]>();
    for (const s of skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.check]);
    print(`  skipped checks (${skipped.length}):`);
    for (const [reason, checks] of byReason) print(`    ${checks.join(", ")}: ${reason}`);
  }
  if (partial.length) {
    print(`  judged in part (each says what it left, and what judges the rest):`);
    for (const p of partial) print(`    ${p.check}: ${p.what}`);
  }
  if (inconclusive.length) {
    print(
      `  inconclusive (${inconclusive.length}): met and not judged either way, so not passed (--strict fails on them)`,
    );
    for (const i of inconclusive.slice(0, 20)) print(`    ${i.check}: ${i.what}`);
    if (inconclusive.length > 20)
      print(`    … and ${inconclusive.length - 20} more (reports/conformance-violations.json)`);
  }
  if (consumed.length) {
    print(`  consumed, as the config allows (make them again before the next run):`);
    for (const c of consumed) print(`    ${c.check}: ${c.what}`);
  }
  if (leftovers.length) {
    print(`  not cleaned up (${leftovers.length}): the target keeps what these checks made`);
    for (const l of leftovers) print(`    ${l.check}: ${l.what}`);
  }
  print(`  violations: ${violations.length} (reports/conformance-violations.json)\n`);
  return coverage;
}
