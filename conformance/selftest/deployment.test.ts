/**
 * The kit against deployments: every fault of the self-test behind a simulator seen as a deployment (real
 * time, the control plane closed, the kit given only a config). What the kit reports in simulator mode it
 * must report here too, except the faults below that a deployment cannot show, each with the reason
 * (README, "Against a deployment"). Each run keeps the time budget the CLI would give it.
 */
import { describe, expect, it } from "vitest";
import { skipReason } from "../lib/running/skips.ts";
import { FAULTS } from "./faults.ts";
import { deploymentServer, expectReported, runAll } from "./harness.ts";
import { SIMULATOR_ONLY } from "./simulator-only.ts";

process.env.CONFORMANCE_SHRINK_MS ??= "1500";

/**
 * A state that lasts a few seconds of the simulator's time: its clock runs at real speed for these,
 * so that polling sees the state as it would on a deployment.
 */
const TRANSIENT = new Set([
  "readiness leaves training members that can chat out of ready, isReady and learning",
  "research.stage goes back to researching after recalibrating",
  "a member being repaired shows trainingStatus running",
  "fullyTrained while members still learn",
]);

/**
 * Seen only where the config says the deployment counts every request of an account in one place: with
 * several instances counting, RateLimit-Remaining is judged by what holds on any deployment only.
 */
const COUNTED_IN_ONE_PLACE = new Set(["RateLimit-Remaining one too high on every served request"]);

/** Seen only by a second key of the refused account, which a deep run makes (and deletes after the window). */
const WHOLE_WINDOW = new Set(["the rate-limit budget is per key, not per account"]);

describe("each deliberate fault is reported against a deployment too", () => {
  it("names only faults the self-test has", () => {
    const names = new Set(FAULTS.map((f) => f.name));
    for (const n of [...Object.keys(SIMULATOR_ONLY), ...TRANSIENT, ...WHOLE_WINDOW, ...COUNTED_IN_ONE_PLACE])
      expect(names.has(n), n).toBe(true);
  });
  for (const c of FAULTS.filter((f) => !SIMULATOR_ONLY[f.name])) {
    it.concurrent(`${c.name} → ${c.reportedBy}`, async () => {
      // The 429 check needs a limit it can reach: the deployment's is small, and the config says so. Its
      // quick form leaves out what waits a real minute for the window to end, unless the fault needs it.
      const limited = c.checks.some((d) => d.needs?.rateLimit);
      const server = await deploymentServer(c.fault, c.layer, {
        speed: TRANSIENT.has(c.name) ? 1 : 10,
        ...(limited ? { rateLimitPerMinute: 20, deep: WHOLE_WINDOW.has(c.name) } : {}),
        countedInOnePlace: COUNTED_IN_ONE_PLACE.has(c.name),
      });
      try {
        const runnable = c.checks.filter((d) => skipReason(d, server.info) === null);
        expect(
          runnable.map((d) => d.name),
          "every check of the case can run against the deployment",
        ).toEqual(c.checks.map((d) => d.name));
        // Within the time budget the CLI gives such a run by default (60 s quick, 30 min deep): every
        // request and poll spends from it, and what it found must be reported by then.
        const budgetMs = server.info.quick ? 60_000 : 30 * 60_000;
        const started = Date.now();
        const found = await runAll(runnable, { ...server.info, deadline: started + budgetMs });
        expect(Date.now() - started, "the run ends within its time budget").toBeLessThan(budgetMs);
        expectReported(found, c);
      } finally {
        await server.close();
      }
    });
  }
});
