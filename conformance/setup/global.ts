/**
 * Global setup of the conformance project. With no CONFORMANCE_TARGET (plain `npm test`), it starts an
 * in-process simulator on a manual clock and points the suite at it. It then discovers the target once
 * (reset, keys, IDs) and provides it to every test file; the teardown restores the simulator's rate
 * limit, merges the fragments into the reports and prints the coverage summary.
 */
import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { allChecks } from "../checks/index.ts";
import { sentenceIndexWith } from "../index/index.ts";
import { discover, settingsFromEnv } from "../lib/http/target.ts";
import { type CoverageFragment, readFragments } from "../lib/reporting/coverage.ts";
import { fragmentsDir } from "../lib/reporting/paths.ts";
import type { Violation } from "../lib/reporting/report.ts";
import { finishRun } from "../lib/running/finish.ts";

const OWN_SUITE_SEED = 20261125;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const settings = settingsFromEnv();
  let close: (() => Promise<void>) | null = null;
  if (!settings.target && !settings.config) {
    // The project's own suite: one fixed seed, so that a red run replays as it was (CONFORMANCE_SEED=N
    // explores others). Runs against a user's target keep a fresh seed each time, printed.
    if (!process.env.CONFORMANCE_SEED) settings.seed = OWN_SUITE_SEED;
    const { createSandboxes, createSimulator } = await import("../../src/simulator.ts");
    const { startServer } = await import("../../src/node/server.ts");
    // Every reused answer is checked against a fresh one: a stale one answers 500, which the kit reports.
    const options = { clock: "manual" as const, wallClock: Date.now, verifyKeptAnswers: true };
    // With sandboxes beside the default world, as `serve` has them: a case makes a fresh world in one.
    const sim = createSandboxes(options, createSimulator(options));
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
    const fragments = readFragments<CoverageFragment>(dir, "coverage");
    // Nothing ran (say `vitest list`): keep the reports of the last real run.
    if (fragments.length === 0) {
      rmSync(dir, { recursive: true, force: true });
      await close?.();
      return;
    }
    await finishRun(
      info,
      {
        violations: readFragments<Violation[]>(dir, "violations").flat(),
        coverage: fragments,
        skipped: readFragments<{ check: string; reason: string }[]>(dir, "skips").flat(),
        // The vitest project runs against a simulator: nothing is planned to a window there.
        partial: [],
        // Nor used up: a reset puts the simulator back.
        consumed: [],
        inconclusive: readFragments<{ check: string; what: string }[]>(dir, "inconclusive").flat(),
        leftovers: readFragments<{ check: string; what: string }[]>(dir, "leftovers").flat(),
      },
      (line) => {
        if (!process.env.CONFORMANCE_QUIET) console.log(line);
      },
      sentenceIndexWith(allChecks),
    );
    rmSync(dir, { recursive: true, force: true });
    await close?.();
  };
}
