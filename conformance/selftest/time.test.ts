/**
 * Time against a deployment: what the kit waits for may not arrive within `pollTimeoutMs`. Then the check
 * is skipped with the reason, never passed, and nothing is reported as a violation of the API.
 */
import { expect, it } from "vitest";
import { exportJob } from "../checks/timelines.ts";
import { runCheck } from "../lib/context.ts";
import { SEQUENCE_FAULTS } from "./faults-sequences.ts";
import { brokenServer } from "./harness.ts";

it("a deployment that never finishes an export gets the check skipped with the reason", async () => {
  const never = SEQUENCE_FAULTS.find((f) => f.name === "an export job never becomes downloadable");
  const server = await brokenServer(never?.fault ?? null);
  try {
    const skipped: string[] = [];
    const info = { ...server.info, kind: "deployment" as const, pollTimeoutMs: 1_000 };
    const found = await runCheck(exportJob, info, undefined, { onSkip: (r) => skipped.push(r) });
    expect(found).toEqual([]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(/^out of time \(pollTimeoutMs 1000\): the export could not be downloaded/);
  } finally {
    await server.close();
  }
});

it("the same fault on the simulator, whose clock the kit moves, is a violation", async () => {
  const never = SEQUENCE_FAULTS.find((f) => f.name === "an export job never becomes downloadable");
  const server = await brokenServer(never?.fault ?? null);
  try {
    const skipped: string[] = [];
    const found = await runCheck(exportJob, server.info, undefined, { onSkip: (r) => skipped.push(r) });
    expect(found.map((v) => v.message)).toEqual(["the export could not be downloaded within the wait"]);
    expect(skipped).toEqual([]);
  } finally {
    await server.close();
  }
});
