import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirForTests } from "../../../testing/temp-dir.ts";
import type { Change } from "../../core/persistence/changes.ts";
import { createSimulator } from "../../simulator.ts";
import { ChangeLog, encodeRecord, parseLog, readSavedState } from "./change-log.ts";
import { StateFileError } from "./state-file.ts";

const tmp = tempDirForTests("sim-log-");

const advance = (ms: number): Change => ({ kind: "advance", ms });
const fatal = (error: unknown): never => {
  throw error;
};

describe("log records", () => {
  it("read back as written, a torn or damaged tail dropped and counted", () => {
    const good = encodeRecord(advance(1)) + encodeRecord(advance(2));
    expect(parseLog(good, "f")).toEqual({ records: [advance(1), advance(2)], torn: 0 });
    const cut = encodeRecord(advance(3)).slice(0, 12);
    expect(parseLog(good + cut, "f")).toEqual({ records: [advance(1), advance(2)], torn: 1 });
    // A whole line whose checksum does not match is a torn tail too.
    const flipped = encodeRecord(advance(4)).replace('"ms":4', '"ms":5');
    expect(parseLog(good + flipped, "f")).toEqual({ records: [advance(1), advance(2)], torn: 1 });
  });

  it("stop at the zeros written ahead: what follows them was never acknowledged", () => {
    const good = encodeRecord(advance(1)) + encodeRecord(advance(2));
    const zeros = "\0".repeat(4096);
    expect(parseLog(good + zeros, "f")).toEqual({ records: [advance(1), advance(2)], torn: 0 });
    // A crash that left a later block of a group on disk and not an earlier one: a hole, then records.
    const later = encodeRecord(advance(4)) + encodeRecord(advance(5));
    expect(parseLog(good + zeros + later + zeros, "f")).toEqual({
      records: [advance(1), advance(2)],
      torn: 2,
    });
    const cut = encodeRecord(advance(3)).slice(0, 12);
    expect(parseLog(good + cut + zeros, "f")).toEqual({ records: [advance(1), advance(2)], torn: 1 });
  });

  it("refuse damage with good records after it: that is no torn tail", () => {
    const damaged = encodeRecord(advance(1)).replace("1", "9") + encodeRecord(advance(2));
    expect(() => parseLog(damaged, "f")).toThrow(/record 1 is damaged/);
  });
});

describe("the change log", () => {
  it("shares one fsync among the changes that arrive while another is under way", async () => {
    const path = join(tmp.path, "group.json");
    const log = new ChangeLog(path, 0, { onFatal: fatal });
    const acks = Array.from({ length: 200 }, (_, i) => log.record(advance(i), true));
    await Promise.all(acks);
    expect(log.syncs).toBeLessThanOrEqual(3);
    expect(parseLog(await readFile(`${path}.log.1`, "utf8"), "f").records).toHaveLength(200);
    await log.close();
  });

  it("writes its records into space written ahead, in steps, and leaves none of it when closed", async () => {
    const path = join(tmp.path, "ahead.json");
    const log = new ChangeLog(path, 0, { onFatal: fatal });
    // One group at a time, each past the last: the space ahead runs out and is written again many times.
    let written = 0;
    for (let i = 0; i < 3000; i += 100) {
      const group = Array.from({ length: 100 }, (_, j) => advance(i + j));
      await Promise.all(group.map((c) => log.record(c, true)));
      written += group.map(encodeRecord).join("").length;
      const text = await readFile(`${path}.log.1`, "utf8");
      expect(text.indexOf("\0")).toBe(written);
      expect(parseLog(text, "f")).toEqual({
        records: Array.from({ length: i + 100 }, (_, k) => advance(k)),
        torn: 0,
      });
    }
    await log.close();
    expect((await stat(`${path}.log.1`)).size).toBe(written);
  });

  it("acknowledges a change only once it is on disk", async () => {
    const path = join(tmp.path, "ack.json");
    const log = new ChangeLog(path, 0, { onFatal: fatal });
    const ack = log.record(advance(7), true);
    expect(log.record(advance(8), false)).toBeUndefined();
    await ack;
    const text = await readFile(`${path}.log.1`, "utf8");
    expect(parseLog(text, "f").records[0]).toEqual(advance(7));
    await log.close();
  });

  it("stops acknowledging, and says so, when the log cannot be written", async () => {
    const errors: unknown[] = [];
    const log = new ChangeLog(join(tmp.path, "no-such-dir", "state.json"), 0, {
      onFatal: (e) => errors.push(e),
    });
    await expect(log.record(advance(1), true)).rejects.toThrow(/ENOENT/);
    expect(errors).toHaveLength(1);
    await expect(log.record(advance(2), true)).rejects.toThrow(/ENOENT/);
    // Nobody waits on a change that is not durable: nothing to reject (an unhandled rejection would crash).
    expect(log.record(advance(3), false)).toBeUndefined();
  });

  it("compacts into a snapshot, deletes the log it replaces, and loads back to the same world", async () => {
    const path = join(tmp.path, "compact.json");
    let full = 0;
    const log = new ChangeLog(path, 0, { onFatal: fatal, onFull: () => full++, compactAfterRecords: 3 });
    const sim = createSimulator({ clock: "manual", changes: log });
    await sim.ready;
    await log.compact(sim);
    const t0 = sim.clock.now();
    sim.advance(1_000);
    sim.advance(2_000);
    await log.flush();
    expect((await readdir(tmp.path)).filter((n) => n.startsWith("compact.json.log."))).toEqual([
      "compact.json.log.2",
    ]);
    let saved = await readSavedState(path);
    expect(saved.snapshot?.log).toEqual({ generation: 2 });
    expect(saved.changes).toEqual([
      { ...advance(1_000), at: t0 },
      { ...advance(2_000), at: t0 + 1_000 },
    ]);
    sim.advance(3_000);
    expect(full).toBe(1);
    await log.compact(sim);
    expect((await readdir(tmp.path)).filter((n) => n.startsWith("compact.json.log."))).toEqual([]);
    saved = await readSavedState(path);
    expect(saved.changes).toEqual([]);
    expect(saved.snapshot?.clock.now).toBe(sim.clock.now());
    await log.close();
    // A log continued from here (no file on disk names a generation) goes where the next read looks.
    expect(saved.generation).toBeGreaterThanOrEqual(saved.snapshot?.log?.generation ?? 0);
    const next = new ChangeLog(path, saved.generation, { onFatal: fatal });
    await next.record(advance(4_000), true);
    await next.close();
    expect((await readSavedState(path)).changes).toEqual([advance(4_000)]);
  });

  it("asks for a snapshot after a reset, which makes everything logged before it moot", async () => {
    let full = 0;
    const log = new ChangeLog(join(tmp.path, "reset.json"), 0, { onFatal: fatal, onFull: () => full++ });
    log.record(advance(1), false);
    expect(full).toBe(0);
    await log.record({ kind: "reset", scenario: "default", seed: 2 }, true);
    expect(full).toBe(1);
    await log.close();
  });

  it("refuses a log whose snapshot is gone, and reads a torn tail with a notice", async () => {
    const orphan = join(tmp.path, "orphan.json");
    await writeFile(`${orphan}.log.1`, encodeRecord(advance(1)));
    await expect(readSavedState(orphan)).rejects.toThrow(StateFileError);
    await expect(readSavedState(orphan)).rejects.toThrow(/without its snapshot/);

    const path = join(tmp.path, "torn.json");
    const log = new ChangeLog(path, 0, { onFatal: fatal });
    const sim = createSimulator({ clock: "manual", changes: log });
    await sim.ready;
    await log.compact(sim);
    const t0 = sim.clock.now();
    sim.advance(500);
    await log.close();
    await writeFile(`${path}.log.2`, `${await readFile(`${path}.log.2`, "utf8")}0badf00d {"kind":"adv`);
    const saved = await readSavedState(path);
    expect(saved.changes).toEqual([{ ...advance(500), at: t0 }]);
    expect(saved.notices.join()).toMatch(/dropped 1 incomplete record at its end/);
  });
});
