/**
 * Global setup of the conformance project. With no CONFORMANCE_TARGET (plain `npm test`), it starts an
 * in-process simulator on a manual clock and points the suite at it. It then discovers the target once
 * (reset, keys, IDs) and provides it to every test file; the teardown restores the simulator's rate
 * limit, merges the fragments into the reports and prints the coverage summary.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { type CoverageFragment, formatCoverage, mergeCoverage, readFragments } from "../lib/coverage.ts";
import { fragmentsDir, reportsDir } from "../lib/paths.ts";
import { dedupe, type Violation } from "../lib/report.ts";
import { discover, setSimRateLimit, settingsFromEnv } from "../lib/target.ts";

const OWN_SUITE_SEED = 20261125;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const settings = settingsFromEnv();
  let close: (() => Promise<void>) | null = null;
  if (!settings.target && !settings.config) {
    // The project's own suite: one fixed seed, so that a red run replays as it was (CONFORMANCE_SEED=N
    // explores others). Runs against a user's target keep a fresh seed each time, printed.
    if (!process.env.CONFORMANCE_SEED) settings.seed = OWN_SUITE_SEED;
    const { createSimulator } = await import("../../src/simulator.ts");
    const { startServer } = await import("../../src/node/server.ts");
    const sim = createSimulator({ clock: "manual", wallClock: Date.now });
    const server = await startServer(sim, { port: 0, host: "127.0.0.1", onError: () => {} });
    settings.target = server.url;
    close = server.close;
  }
  const info = await discover(settings);
  project.provide("conformanceTarget", info);
  const dir = fragmentsDir(info.runId);
  rmSync(dir, { recursive: true, force: true });
  if (!process.env.CONFORMANCE_QUIET) {
    console.log(
      `[conformance] target ${info.baseUrl} (${info.kind}); seed ${info.seed}${info.readOnly ? "; read-only" : ""}`,
    );
  }

  return async () => {
    if (info.kind === "simulator" && info.originalRateLimit !== null) {
      await setSimRateLimit(info.baseUrl, info.controlToken, info.originalRateLimit).catch(() => {});
    }
    const fragments = readFragments<CoverageFragment>(dir, "coverage");
    // Nothing ran (say `vitest list`): keep the reports of the last real run.
    if (fragments.length === 0) {
      rmSync(dir, { recursive: true, force: true });
      await close?.();
      return;
    }
    const violations = dedupe(readFragments<Violation[]>(dir, "violations").flat());
    const coverage = mergeCoverage(fragments);
    const skipped = readFragments<{ check: string; reason: string }[]>(dir, "skips").flat();
    const leftovers = readFragments<{ check: string; what: string }[]>(dir, "leftovers").flat();
    mkdirSync(reportsDir(), { recursive: true });
    const meta = {
      target: info.baseUrl,
      kind: info.kind,
      seed: info.seed,
      finishedAt: new Date().toISOString(),
    };
    writeFileSync(
      join(reportsDir(), "conformance-violations.json"),
      JSON.stringify({ ...meta, violations, skipped, leftovers }, null, 2),
    );
    writeFileSync(
      join(reportsDir(), "conformance-coverage.json"),
      JSON.stringify({ ...meta, ...coverage }, null, 2),
    );
    rmSync(dir, { recursive: true, force: true });
    if (!process.env.CONFORMANCE_QUIET) {
      console.log(`\n${formatCoverage(coverage)}`);
      if (skipped.length) {
        console.log(`  skipped checks (${skipped.length}):`);
        for (const s of skipped) console.log(`    ${s.check}: ${s.reason}`);
      }
      if (leftovers.length) {
        console.log(`  not cleaned up (${leftovers.length}): the target keeps what these checks made`);
        for (const l of leftovers) console.log(`    ${l.check}: ${l.what}`);
      }
      console.log(`  violations: ${violations.length} (reports/conformance-violations.json)\n`);
    }
    await close?.();
  };
}
