import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createStateFileWriter,
  readStateFile,
  removeStaleTemporaries,
  StateFileError,
  writeFileAtomic,
} from "./state-file.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sim-state-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("state file", () => {
  it("writes atomically and leaves no temporary file behind", async () => {
    const path = join(dir, "atomic.json");
    await writeFileAtomic(path, "one");
    await writeFileAtomic(path, "two");
    expect(await readFile(path, "utf8")).toBe("two");
    expect((await readdir(dir)).filter((n) => n.startsWith(".atomic.json."))).toEqual([]);
  });

  it("reads nothing from a missing file, and refuses corrupt or foreign files clearly", async () => {
    expect(await readStateFile(join(dir, "missing.json"))).toBeNull();
    const bad = join(dir, "bad.json");
    await writeFile(bad, '{"format":"audience-research-sim/state","version":1,');
    await expect(readStateFile(bad)).rejects.toThrow(StateFileError);
    await expect(readStateFile(bad)).rejects.toThrow(/bad\.json: not valid JSON/);
    await writeFile(bad, JSON.stringify({ format: "audience-research-sim/state", version: 99 }));
    await expect(readStateFile(bad)).rejects.toThrow(
      /unsupported state file version 99; this simulator reads version 1/,
    );
    await writeFile(bad, "[]");
    await expect(readStateFile(bad)).rejects.toThrow(/not a simulator state file/);
  });

  it("coalesces changes, keeps one write in flight, and flushes what is pending", async () => {
    const path = join(dir, "debounced.json");
    let produced = 0;
    const writer = createStateFileWriter(path, () => `state ${++produced}`, { debounceMs: 30 });
    for (let i = 0; i < 50; i++) writer.schedule();
    await sleep(150);
    expect(writer.writes).toBe(1);
    expect(await readFile(path, "utf8")).toBe("state 1");
    writer.schedule();
    await writer.flush();
    expect(writer.writes).toBe(2);
    expect(await readFile(path, "utf8")).toBe("state 2");
    await writer.flush();
    expect(writer.writes).toBe(2);
  });

  it("reports a failed write and retries it with the next change", async () => {
    const path = join(dir, "no-such-dir", "state.json");
    const errors: unknown[] = [];
    const writer = createStateFileWriter(path, () => "x", { debounceMs: 5, onError: (e) => errors.push(e) });
    writer.schedule();
    await sleep(60);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(writer.writes).toBe(0);
  });

  it("removes temporaries a killed process left behind, and only those", async () => {
    const path = join(dir, "killed.json");
    await writeFile(join(dir, ".killed.json.123.4.tmp"), "half");
    await writeFile(join(dir, ".killed.json.keep"), "other");
    expect(await removeStaleTemporaries(path)).toEqual([".killed.json.123.4.tmp"]);
    expect((await readdir(dir)).filter((n) => n.startsWith(".killed.json"))).toEqual([".killed.json.keep"]);
  });
});
