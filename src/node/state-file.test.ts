import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStateFile, removeStaleTemporaries, StateFileError, writeFileAtomic } from "./state-file.ts";

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

  it("removes temporaries a killed process left behind, and only those", async () => {
    const path = join(dir, "killed.json");
    await writeFile(join(dir, ".killed.json.123.4.tmp"), "half");
    await writeFile(join(dir, ".killed.json.keep"), "other");
    expect(await removeStaleTemporaries(path)).toEqual([".killed.json.123.4.tmp"]);
    expect((await readdir(dir)).filter((n) => n.startsWith(".killed.json"))).toEqual([".killed.json.keep"]);
  });
});
