/**
 * Time: a background machine (a Formation build, an export, a recalibration, research) must finish within
 * its deadline, the config's (`deadlines`) or the kit's default; past it, a state that has not finished is a
 * violation in both modes, naming the deadline and where it comes from. What has no deadline is waited for
 * within `pollTimeoutMs`, and against a deployment a wait that runs out skips the check, never passes it.
 */
import { expect, it } from "vitest";
import { exportJob } from "../checks/domain/timelines.ts";
import { deadlinesOf } from "../lib/description/deadlines.ts";
import { runCheck } from "../lib/running/context.ts";
import { FAULTS } from "./faults.ts";
import { brokenServer } from "./harness.ts";

const never = FAULTS.find((f) => f.name === "an export job never becomes downloadable");

it("a deployment whose export never finishes breaks the deadline its config states", async () => {
  const server = await brokenServer(never?.fault ?? null);
  try {
    const skipped: string[] = [];
    const { deadlines, stated } = deadlinesOf({ exportMs: 1_000 });
    const info = { ...server.info, kind: "deployment" as const, deadlines, deadlinesStated: stated };
    const started = Date.now();
    const found = await runCheck(exportJob, info, undefined, { onSkip: (r) => skipped.push(r) });
    expect(found.map((v) => v.message)).toEqual([
      "the export could not be downloaded: past the deadline of 1 s for export (the config's deadlines.exportMs)",
    ]);
    expect(skipped).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
  } finally {
    await server.close();
  }
});

it("the same fault on the simulator, whose clock the kit moves, breaks the kit's default deadline", async () => {
  const server = await brokenServer(never?.fault ?? null);
  try {
    const skipped: string[] = [];
    const found = await runCheck(exportJob, server.info, undefined, { onSkip: (r) => skipped.push(r) });
    expect(found.map((v) => v.message)).toEqual([
      "the export could not be downloaded: past the deadline of 120 s for export (the kit's default)",
    ]);
    expect(skipped).toEqual([]);
  } finally {
    await server.close();
  }
});

it("states the kit's defaults and takes a config's own", () => {
  expect(deadlinesOf(undefined)).toEqual({
    deadlines: { formationBuild: 120_000, export: 120_000, recalibration: 300_000, research: 600_000 },
    stated: [],
  });
  expect(deadlinesOf({ researchMs: 5_000 }).deadlines.research).toBe(5_000);
  expect(deadlinesOf({ researchMs: 5_000 }).stated).toEqual(["research"]);
});
