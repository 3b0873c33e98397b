/**
 * Worlds picked and moved through the control plane: inline scenario documents in a reset and a new
 * sandbox, and whole-world snapshots out and back in. A refusal is a 400 in the envelope that says why,
 * and leaves the world as it was.
 */
import { describe, expect, it } from "vitest";
import { createSandboxes, createSimulator } from "../../simulator.ts";
import type { Change } from "../persistence/changes.ts";
import { SNAPSHOT_VERSION } from "../persistence/snapshot.ts";
import { stateDigest } from "./digest.ts";
import type { Manifest } from "./manifest.ts";

const ORIGIN = "http://sim.test";

const WORLD = {
  name: "tiny",
  users: { dev: { plan: "premium" }, viewer: {} },
  audiences: { a: { owner: "dev", public: true, members: [{ generate: 5 }], grounding: true } },
};

function setup() {
  const changes: Change[] = [];
  const options = { clock: "manual" as const };
  const main = createSimulator({ ...options, changes: { record: (c) => void changes.push(c) } });
  const host = createSandboxes(options, main);
  const call = async (
    method: string,
    path: string,
    opts: { key?: string; body?: unknown; raw?: string; token?: string } = {},
  ) => {
    const headers: Record<string, string> = {};
    if (opts.token) headers["x-sim-control-token"] = opts.token;
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await host.fetch(
      new Request(`${ORIGIN}${path}`, { method, headers, ...(body ? { body } : {}) }),
    );
    const text = await res.text();
    // Parsed when read: a snapshot's text is megabytes, and most calls only compare it.
    return {
      status: res.status,
      text,
      get body(): any {
        try {
          return text ? JSON.parse(text) : undefined;
        } catch {
          return undefined;
        }
      },
    };
  };
  const manifest = async (prefix = "") => (await call("GET", `${prefix}/__sim/manifest`)).body as Manifest;
  /** Everything a refusal must leave alone: the manifest and a digest of the whole state. */
  const world = async (prefix = "") => ({
    manifest: await manifest(prefix),
    snapshot: (await call("GET", `${prefix}/__sim/snapshot`)).text,
  });
  return { host, main, call, manifest, world, changes };
}

describe("inline scenarios", () => {
  it("reset the world to the document, and a change log makes the same world again", async () => {
    const { call, changes, main } = setup();
    const r = await call("POST", "/__sim/reset", { body: { scenario: WORLD, seed: 3 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scenario: "tiny", seed: 3 });
    expect(Object.keys(r.body.users)).toEqual(["dev", "viewer"]);
    const a = r.body.audiences.a.id;
    const detail = await call("GET", `/api/v1/audiences/${a}`, { key: r.body.users.viewer.apiKey });
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ mindCount: 5, currentMemberRole: "public_viewer" });

    const reset = changes.find((c) => c.kind === "reset");
    expect(reset).toMatchObject({ kind: "reset", scenario: "tiny", seed: 3, document: WORLD });
    const other = createSimulator({ clock: "manual" });
    await other.replay(changes);
    expect(other.manifest()).toEqual(main.manifest());
    expect(stateDigest(other.state)).toBe(stateDigest(main.state));
  });

  it("refuse an invalid document with every problem's path in data.problems, and change nothing", async () => {
    const { call, world } = setup();
    const before = await world();
    const bad = { users: { dev: { plan: "gold" } }, audiences: { a: { owner: "ghost" } } };
    const r = await call("POST", "/__sim/reset", { body: { scenario: bad } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, error: true, url: "/__sim/reset" });
    // Both at once: the schema's problem and the meaning's.
    expect(r.body.data.problems).toEqual([
      { path: "/users/dev/plan", message: expect.any(String) },
      { path: "/audiences/a/owner", message: expect.stringMatching(/names no user/) },
    ]);
    const semantic = await call("POST", "/__sim/reset", {
      body: { scenario: { audiences: { a: { owner: "ghost" } } } },
    });
    expect(semantic.status).toBe(400);
    expect(semantic.body.data.problems).toEqual([
      { path: "/audiences/a/owner", message: expect.stringMatching(/names no user/) },
    ]);
    for (const scenario of [42, ["default"], null, "nope"]) {
      const refused = await call("POST", "/__sim/reset", { body: { scenario } });
      expect(refused.status).toBe(400);
    }
    expect((await call("POST", "/__sim/reset", { body: { scenario: "nope" } })).body.data.known).toContain(
      "default",
    );
    expect(await world()).toEqual(before);
  });

  it("refuse a document whose setup a request refuses, naming the step, and keep the old world", async () => {
    const { call, world } = setup();
    const before = await world();
    const scenario = {
      ...WORLD,
      setup: [{ advanceMs: 10 }, { as: "viewer", method: "DELETE", path: "/api/v1/audiences/{audiences.a}" }],
    };
    const r = await call("POST", "/__sim/reset", { body: { scenario } });
    expect(r.status).toBe(400);
    expect(r.body.data.problems).toEqual([
      {
        path: "/setup/1",
        message: expect.stringMatching(/^DELETE \/api\/v1\/audiences\/\{audiences\.a\} answered 404/),
      },
    ]);
    expect(await world()).toEqual(before);
  });

  it("make a sandbox of its own, which a restart could make again from its record", async () => {
    const { call, host } = setup();
    const r = await call("POST", "/__sim/sandboxes", { body: { scenario: WORLD } });
    expect(r.status).toBe(201);
    expect(r.body.manifest).toMatchObject({ scenario: "tiny", seed: 1 });
    const key = r.body.manifest.users.dev.apiKey as string;
    expect(key.startsWith(`service_sbx_${r.body.id}_`)).toBe(true);
    expect((await call("GET", "/api/v1/auth/me", { key })).body).toEqual({
      id: r.body.manifest.users.dev.id,
    });
    const listed = (await call("GET", "/__sim/sandboxes")).body;
    expect(listed[0]).toMatchObject({ id: r.body.id, scenario: "tiny" });
    const bad = await call("POST", "/__sim/sandboxes", {
      body: { scenario: { users: { x: { team: "none" } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data.problems[0].path).toBe("/users/x/team");
    expect(host.size).toBe(1);
  });
});

describe("world snapshots", () => {
  it("round-trip: snapshot, load, snapshot gives the same bytes and the same answers", async () => {
    const { call, manifest } = setup();
    const m = await manifest();
    const key = m.users.owner?.apiKey as string;
    await call("POST", "/__sim/clock/advance", { body: { ms: 1234 } });
    await call("POST", `/api/v1/audiences/${m.audiences.main?.id}/export`, { key, body: { format: "md" } });
    const first = await call("GET", "/__sim/snapshot");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ format: "audience-research-sim/state", version: SNAPSHOT_VERSION });
    const status = () =>
      call("GET", `/api/v1/audiences/${m.audiences.main?.id}/export-status?format=md`, { key });
    const answer = (await status()).text;

    await call("POST", "/__sim/reset", { body: { scenario: "new-free-account" } });
    const loaded = await call("PUT", "/__sim/snapshot", { raw: first.text });
    expect(loaded.status).toBe(200);
    expect(loaded.body.users.owner.apiKey).toBe(key);
    expect((await call("GET", "/__sim/snapshot")).text).toBe(first.text);
    expect((await status()).text).toBe(answer);
  });

  it("keep their clock: a manual world loaded into a real-clock simulator does not move by itself", async () => {
    let wall = 1_000_000;
    const manual = createSimulator({ clock: "manual" });
    await manual.ready;
    const saved = manual.snapshot();
    expect(saved.clock.mode).toBe("manual");
    const real = createSimulator({ clock: "real", wallClock: () => wall });
    await real.ready;
    real.load(saved);
    const before = real.manifest().now;
    wall += 60_000;
    expect(real.manifest().now).toBe(before);
    expect(real.snapshotText()).toBe(manual.snapshotText());
    // And the other way round: a real world stays real.
    const back = createSimulator({ clock: "manual", wallClock: () => wall });
    await back.ready;
    back.load({ ...saved, clock: { ...saved.clock, mode: "real" } });
    const at = Date.parse(back.manifest().now);
    wall += 5_000;
    expect(Date.parse(back.manifest().now)).toBe(at + 5_000);
    expect(() => back.load({ ...saved, clock: { ...saved.clock, mode: "fast" } })).toThrow(/clock.mode/);
  });

  it("refuse what is not a snapshot of this world, and change nothing", async () => {
    const { call, world } = setup();
    const snap = JSON.parse((await call("GET", "/__sim/snapshot")).text);
    const before = await world();
    const cases: [unknown, RegExp][] = [
      [{ ...snap, version: SNAPSHOT_VERSION + 1 }, /unsupported state file version/],
      [{ hello: "world" }, /not a simulator state file/],
      [{ ...snap, clock: { now: "soon" } }, /clock must be/],
      [{ ...snap, state: { tables: { nope: [] }, extra: {} } }, /unknown state table/],
    ];
    for (const [body, message] of cases) {
      const r = await call("PUT", "/__sim/snapshot", { body });
      expect(r.status).toBe(400);
      expect(r.body.statusMessage).toMatch(message);
    }
    expect((await call("PUT", "/__sim/snapshot", { raw: "[1," })).status).toBe(400);
    expect(await world()).toEqual(before);
  });

  it("exist per sandbox, and a sandbox refuses another world's keys", async () => {
    const { call } = setup();
    const sb = (await call("POST", "/__sim/sandboxes", { body: { scenario: WORLD } })).body;
    const prefix = `/__sim/sandboxes/${sb.id}`;
    const token = sb.controlToken as string;
    const own = await call("GET", `${prefix}/snapshot`, { token });
    expect(own.status, own.text).toBe(200);
    expect(JSON.parse(own.text).manifest.users.dev.apiKey).toBe(sb.manifest.users.dev.apiKey);
    expect((await call("PUT", `${prefix}/snapshot`, { raw: own.text, token })).status).toBe(200);
    const main = (await call("GET", "/__sim/snapshot")).text;
    const foreign = await call("PUT", `${prefix}/snapshot`, { raw: main, token });
    expect(foreign.status).toBe(400);
    expect(foreign.body.statusMessage).toMatch(/API keys belong to another world/);
  });
});
