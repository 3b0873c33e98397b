import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirForTests } from "../../../testing/temp-dir.ts";
import { Answer } from "../../core/request/exchange.ts";
import type { Manifest } from "../../core/world/manifest.ts";
import type { SandboxRecord } from "../../core/world/sandboxes.ts";
import { restoredWhenUsed, SandboxStore } from "./sandbox-store.ts";
import { StateFileError } from "./state-file.ts";

const tmp = tempDirForTests("sandbox-store-");

const fail = (error: unknown) => {
  throw error;
};
const record = (i: number): SandboxRecord => ({
  id: "aaaaaaaaaaaa",
  controlToken: `sbt_${i}`,
  scenario: "default",
  seed: i,
  createdAt: 1_800_000_000_000 + i,
  lastUsedAt: 1_800_000_000_000 + i,
});
const engine = { checkpoint: async <T>(take: (w: never) => T) => take(undefined as never) };

describe("sandbox store", () => {
  it("lists every sandbox created at once: no registry write overtakes a later one", async () => {
    const state = join(tmp.path, "many.json");
    const store = new SandboxStore(state, { onFatal: fail, onCompactError: fail });
    const records = Array.from({ length: 20 }, (_, i) => ({ ...record(i), id: `many${i}-aaaaaaaaaaaa` }));
    await Promise.all(records.map((r) => store.created(r, engine)));
    const reopened = new SandboxStore(state, { onFatal: fail, onCompactError: fail });
    const again = await reopened.load();
    expect(again.map((s) => s.id).sort()).toEqual(records.map((r) => r.id).sort());
    expect(await reopened.saved(again[0]?.id ?? "")).toMatchObject({ snapshot: null, changes: [] });
  });

  it("removes a deleted sandbox's files, and at load the files of sandboxes it does not list", async () => {
    const state = join(tmp.path, "files.json");
    const store = new SandboxStore(state, { onFatal: fail, onCompactError: fail });
    const kept = { ...record(1), id: "keep-aaaaaaaaaaaa" };
    const gone = { ...record(2), id: "gone-aaaaaaaaaaaa" };
    for (const r of [kept, gone]) {
      store.logFor(r.id);
      await store.created(r, engine);
      await writeFile(`${store.pathOf(r.id)}.log.1`, "");
    }
    await store.deleted(gone.id);
    expect((await readdir(tmp.path)).filter((f) => f.includes("gone"))).toEqual([]);
    await writeFile(`${store.pathOf("stray-aaaaaaaaaaaa")}.log.1`, "");
    const loaded = await new SandboxStore(state, { onFatal: fail, onCompactError: fail }).load();
    expect(loaded.map((s) => s.id)).toEqual([kept.id]);
    expect((await readdir(tmp.path)).filter((f) => f.includes("stray"))).toEqual([]);
    expect((await readdir(tmp.path)).filter((f) => f.includes("keep"))).toEqual([
      "files.json.sandbox-keep-aaaaaaaaaaaa.log.1",
    ]);
  });

  it("restores a sandbox when it is first used, once, however many ask at the same time", async () => {
    let restores = 0;
    const made = {
      ready: Promise.resolve(),
      handle: async () => new Answer(200, {}, "ok"),
      respond: async () => new Answer(200, {}, "ok"),
      manifest: () => ({ seed: 7 }) as unknown as Manifest,
      checkpoint: engine.checkpoint,
    };
    const lazy = restoredWhenUsed(async () => {
      restores++;
      return made;
    });
    expect(restores).toBe(0);
    expect(() => lazy.manifest()).toThrow(/before it was restored/);
    const asked = new Request("http://x/api/v1/auth/me");
    const answers = await Promise.all([lazy.handle(asked), lazy.handle(asked), lazy.ready]);
    expect(restores).toBe(1);
    expect((answers[0] as Answer).status).toBe(200);
    expect(lazy.manifest().seed).toBe(7);
  });

  it("refuses a registry it cannot read", async () => {
    const state = join(tmp.path, "bad.json");
    const store = new SandboxStore(state, { onFatal: fail, onCompactError: fail });
    await writeFile(store.registryPath, "{");
    await expect(store.load()).rejects.toThrow(StateFileError);
    await writeFile(
      store.registryPath,
      JSON.stringify({ format: "audience-research-sim/sandboxes", sandboxes: [{ id: "../x" }] }),
    );
    await expect(store.load()).rejects.toThrow(/cannot be read/);
  });
});
