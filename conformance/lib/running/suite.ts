/**
 * The thin vitest layer: one test per check, skipped visibly (the reason is in the test name) when the
 * target lacks what the check needs, failing with the formatted violations. Violations and coverage are
 * left as fragments for the global teardown to merge into the reports.
 */
import { afterAll, describe, inject, it } from "vitest";
import type { TargetInfo } from "../http/target.ts";
import { Coverage, writeFragment } from "../reporting/coverage.ts";
import { fragmentsDir } from "../reporting/paths.ts";
import { dedupe, formatViolations, type Violation } from "../reporting/report.ts";
import { type CheckDef, runCheck } from "./context.ts";
import { skipReason } from "./skips.ts";

declare module "vitest" {
  export interface ProvidedContext {
    conformanceTarget: TargetInfo;
  }
}

export function target(): TargetInfo {
  return inject("conformanceTarget");
}

export function defineChecks(group: string, checks: readonly CheckDef[], timeoutMs = 120_000): void {
  const info = target();
  const coverage = new Coverage();
  const dir = fragmentsDir(info.runId);
  const skips = checks.flatMap((def) => {
    const reason = skipReason(def, info);
    return reason ? [{ check: def.name, reason }] : [];
  });
  // Skipped checks are listed with their reason at the end of the run, never silently passed.
  if (skips.length) writeFragment(dir, "skips", skips);
  // Names stay the same from run to run (CI history tracks a test by its name); the seed is printed at the
  // start of the run and kept in the reports.
  describe(group, () => {
    for (const def of checks) {
      const reason = skipReason(def, info);
      const name = `${def.name}: ${def.title}${reason ? ` [skipped: ${reason}]` : ""}`;
      it.skipIf(reason !== null)(
        name,
        async (t) => {
          coverage.reached(def.rules);
          let found: Violation[];
          let outOfTime: string | null = null;
          let unjudged: string[] = [];
          try {
            found = dedupe(
              await runCheck(def, info, coverage, {
                onSkip: (r) => (outOfTime = r),
                onInconclusive: (what) => {
                  unjudged = what;
                  writeFragment(
                    dir,
                    "inconclusive",
                    what.map((w) => ({ check: def.name, what: w })),
                  );
                },
                onLeftovers: (what) =>
                  writeFragment(
                    dir,
                    "leftovers",
                    what.map((w) => ({ check: def.name, what: w })),
                  ),
              }),
            );
          } catch (e) {
            const partial = (e as { violations?: Violation[] }).violations ?? [];
            if (partial.length)
              writeFragment(
                dir,
                "violations",
                partial.map((v) => ({ ...v, seed: v.seed ?? info.seed })),
              );
            throw e;
          }
          if (found.length === 0 && outOfTime !== null) {
            // Never passed: what the check waited for did not happen within the run's time budget.
            writeFragment(dir, "skips", [{ check: def.name, reason: outOfTime }]);
            t.skip(outOfTime);
          }
          // The project's own suite is strict: against the simulator nothing may be left unjudged.
          if (found.length === 0 && unjudged.length)
            throw new Error(`inconclusive (the suite is strict):\n  ${unjudged.join("\n  ")}`);
          if (found.length === 0) return;
          writeFragment(
            dir,
            "violations",
            found.map((v) => ({ ...v, seed: v.seed ?? info.seed })),
          );
          throw new Error(formatViolations(found));
        },
        timeoutMs,
      );
    }
    afterAll(() => writeFragment(dir, "coverage", coverage.fragment()));
  });
}
