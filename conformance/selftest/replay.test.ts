/**
 * A failing world sequence is shrunk, saved and replayable: the saved file fails again on the broken server
 * and passes on the simulator as it is.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { world } from "../checks/world.ts";
import { runCheck } from "../lib/running/context.ts";
import { FAULTS } from "./faults.ts";
import { brokenServer } from "./harness.ts";

const dir = mkdtempSync(join(tmpdir(), "conformance-replay-"));
beforeAll(() => {
  process.env.CONFORMANCE_REPORTS_DIR = dir;
});
afterAll(() => {
  delete process.env.CONFORMANCE_REPORTS_DIR;
  delete process.env.CONFORMANCE_REPLAY;
  rmSync(dir, { recursive: true, force: true });
});

it("shrinks a failure to the steps that show it, saves it, and replays it anywhere", async () => {
  const fault = FAULTS.find((f) => f.name === "a deleted key keeps working under /v1");
  const broken = await brokenServer(fault?.fault ?? null, 5);
  const clean = await brokenServer(null, 5);
  try {
    const found = await runCheck(world, broken.info);
    const seq = found.find((v) => v.sequence)?.sequence;
    expect(seq?.shrunk).toBe(true);
    // A key is made and deleted; nothing else is needed to show that /v1 still takes it.
    expect(seq?.steps.length).toBeLessThanOrEqual(3);
    expect(seq?.steps.some((s) => s.startsWith("deleteKey("))).toBe(true);
    const file = seq?.replayFile ? join(dir, seq.replayFile.split("/").pop() as string) : "";
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).steps).toHaveLength(seq?.steps.length ?? -1);
    expect(readFileSync(file.replace(/\.json$/, ".sh"), "utf8")).toContain("/v1/auth/me");

    process.env.CONFORMANCE_REPLAY = file;
    const again = await runCheck(world, broken.info);
    expect(again.some((v) => v.message.includes("under /v1"))).toBe(true);
    expect(await runCheck(world, clean.info)).toEqual([]);
  } finally {
    delete process.env.CONFORMANCE_REPLAY;
    await broken.close();
    await clean.close();
  }
});
