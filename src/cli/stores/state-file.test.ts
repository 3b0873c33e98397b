import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirForTests } from "../../../testing/temp-dir.ts";
import { readStateFile, removeStaleTemporaries, StateFileError, writeFileAtomic } from "./state-file.ts";

const tmp = tempDirForTests("sim-state-");

describe("state file", () => {
  it("writes atomically and leaves no temporary file behind", async () => {
    const path = join(tmp.path, "atomic.json");
    await writeFileAtomic(path, "one");
    await writeFileAtomic(path, "two");
    expect(await readFile(path, "utf8")).toBe("two");
    expect((await readdir(tmp.path)).filter((n) => n.startsWith(".atomic.json."))).toEqual([]);
  });

  it("reads nothing from a missing file, and refuses corrupt or foreign files clearly", async () => {
    expect(await readStateFile(join(tmp.path, "missing.json"))).toBeNull();
    const bad = join(tmp.path, "bad.json");
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
    const path = join(tmp.path, "killed.json");
    await writeFile(join(tmp.path, ".killed.json.123.4.tmp"), "half");
    await writeFile(join(tmp.path, ".killed.json.keep"), "other");
    expect(await removeStaleTemporaries(path)).toEqual([".killed.json.123.4.tmp"]);
    expect((await readdir(tmp.path)).filter((n) => n.startsWith(".killed.json"))).toEqual([
      ".killed.json.keep",
    ]);
  });
});
