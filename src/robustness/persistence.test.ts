import { tempDirForTests } from "../../testing/temp-dir.ts";
/**
 * Persistence: the world survives a snapshot round trip exactly (same digest, and the same answers and IDs
 * afterwards), `--state-file` saves on change and loads at start, and a process killed with SIGKILL at
 * random moments, many of them in the middle of a write, always leaves a file that loads to a consistent
 * world (ROBUSTNESS_KILL_MS bounds that loop, default below).
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startCli as cli, listening, stopCli } from "../../testing/cli.ts";
import type { Snapshot } from "../core/persistence/snapshot.ts";
import { parseSnapshot, SNAPSHOT_VERSION, SnapshotError } from "../core/persistence/snapshot.ts";
import { digest, stateDigest } from "../core/world/digest.ts";
import type { Manifest } from "../core/world/manifest.ts";
import { createRng } from "../generators/prng.ts";
import { createSimulator, type Simulator } from "../simulator.ts";

const KILL_MS = Number(process.env.ROBUSTNESS_KILL_MS ?? 25_000);
const tmp = tempDirForTests("sim-persist-");

async function call(sim: Simulator, key: string, method: string, path: string, body?: unknown) {
  const res = await sim.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
  return { status: res.status, text: await res.text() };
}

/** The consistency check for a saved file: it parses, restores, answers, and reloads to the same world. */
async function checkLoads(text: string): Promise<Snapshot> {
  const snap = parseSnapshot(text);
  expect(snap.version).toBe(SNAPSHOT_VERSION);
  const sim = createSimulator({ clock: "manual", snapshot: snap });
  await sim.ready;
  // The log generation is the host's note beside the world, not part of it.
  const { log: _generation, ...world } = snap;
  expect(digest(sim.snapshot())).toBe(digest(world));
  const owner = snap.manifest.users.owner?.apiKey as string;
  const me = await call(sim, owner, "GET", "/api/v1/auth/me");
  expect(me.status).toBe(200);
  return snap;
}

describe("snapshot round trip", () => {
  it("restores the same world, which then answers and draws IDs exactly as the original would", async () => {
    const a = createSimulator({ clock: "manual" });
    await a.ready;
    const m = a.manifest();
    const owner = m.users.owner?.apiKey as string;
    const main = m.audiences.main?.id as string;
    await call(a, owner, "POST", "/api/v1/api-keys", { name: "before" });
    await call(a, owner, "PUT", `/api/v1/audiences/${main}`, { name: "Saved name" });
    const formation = await call(a, owner, "POST", `/api/v1/audiences/${main}/formations`, {
      hypothesis: {
        intent: "Split by seniority",
        subgroups: [
          { id: "junior", label: "Junior", definition: "Early-career staff" },
          { id: "senior", label: "Senior", definition: "Senior managers and directors" },
        ],
      },
    });
    expect(formation.status).toBe(200);
    a.advance(1_000); // the build is queued on the clock: the snapshot carries pending jobs
    expect(a.clock.pending().length).toBeGreaterThan(0);

    const text = a.snapshotText();
    const b = createSimulator({ clock: "manual", snapshot: parseSnapshot(text) });
    await b.ready;
    expect(stateDigest(b.state, { includeVolatile: true })).toBe(
      stateDigest(a.state, { includeVolatile: true }),
    );
    expect(digest(b.snapshot())).toBe(digest(a.snapshot()));

    // The same requests and clock moves from here on give the same answers, new IDs included.
    for (const sim of [a, b]) sim.advance(120_000);
    const nextA = await call(a, owner, "POST", "/api/v1/api-keys", { name: "after" });
    const nextB = await call(b, owner, "POST", "/api/v1/api-keys", { name: "after" });
    expect(nextB).toEqual(nextA);
    const fa = await call(a, owner, "GET", `/api/v1/audiences/${main}/formations`);
    const fb = await call(b, owner, "GET", `/api/v1/audiences/${main}/formations`);
    expect(fb).toEqual(fa);
    expect(stateDigest(b.state)).toBe(stateDigest(a.state));

    // A snapshot is a copy: restoring it twice, or changing the world after, does not touch it.
    const snap = a.snapshot();
    const d = digest(snap);
    a.restore(snap);
    await call(a, owner, "POST", "/api/v1/api-keys", { name: "later" });
    a.restore(snap);
    expect(digest(snap)).toBe(d);
    expect(digest(a.snapshot())).toBe(d);
  });

  it("refuses files that are not snapshots, of an unknown version, or that the simulator cannot run", async () => {
    const a = createSimulator({ clock: "manual", scenario: "new-free-account" });
    await a.ready;
    const good = JSON.parse(a.snapshotText());
    expect(() => parseSnapshot("{")).toThrow(SnapshotError);
    expect(() => parseSnapshot("{}")).toThrow(/not a simulator state file/);
    expect(() => parseSnapshot(JSON.stringify({ ...good, version: 2 }))).toThrow(
      /unsupported state file version 2; this simulator reads version 1/,
    );
    expect(() => parseSnapshot(JSON.stringify({ ...good, rng: { ...good.rng, a: 1.5 } }))).toThrow(/rng/);
    const job = { at: 0, seq: 0, kind: "no-such-job", payload: null };
    const b = createSimulator({
      clock: "manual",
      snapshot: parseSnapshot(JSON.stringify({ ...good, clock: { ...good.clock, jobs: [job] } })),
    });
    await expect(b.ready).rejects.toThrow(/no handler for job kind "no-such-job"/);
    const c = createSimulator({
      clock: "manual",
      snapshot: parseSnapshot(JSON.stringify({ ...good, state: { tables: { bogus: [] }, extra: {} } })),
    });
    await expect(c.ready).rejects.toThrow(/unknown state table "bogus"/);
  });

  it("the random stream continues from a saved position", () => {
    const r = createRng(7).fork("runtime");
    r.next();
    const saved = r.state();
    const expected = [r.next(), r.uuid()];
    const again = createRng(7).fork("runtime");
    again.restore(saved);
    expect([again.next(), again.uuid()]).toEqual(expected);
    expect(() => createRng(8).fork("runtime").restore(saved)).toThrow(/seed/);
  });
});

async function http(origin: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, text: await res.text() };
}

describe("--state-file", () => {
  it("saves on change and on SIGTERM, loads at start, and says which flags it ignored", async () => {
    const file = join(tmp.path, "cli.json");
    const first = cli(["--port", "0", "--clock", "manual", "--quiet", "--state-file", file]);
    const origin = await listening(first);
    expect(first.stdout()).toMatch(/State file\s+.*cli\.json \(new\)/);
    const initial = await checkLoads(await readFile(file, "utf8"));
    const owner = initial.manifest.users.owner?.apiKey as string;
    const created = await http(origin, owner, "POST", "/api/v1/api-keys", { name: "persisted" });
    expect(created.status).toBe(201);
    const newKey = JSON.parse(created.text).key as string;
    expect((await stopCli(first)).code).toBe(0);
    const saved = await checkLoads(await readFile(file, "utf8"));
    expect(saved.state.tables.apiKeys?.length).toBe((initial.state.tables.apiKeys?.length ?? 0) + 1);

    const second = cli(["--port", "0", "--clock", "manual", "--quiet", "--state-file", file, "--seed", "9"]);
    const origin2 = await listening(second);
    expect(second.stdout()).toMatch(/State file\s+.*cli\.json \(loaded\)/);
    expect(second.stdout()).toMatch(/Scenario\s+default \(seed 1\)/);
    expect(second.stderr()).toContain("--seed ignored");
    expect((await http(origin2, newKey, "GET", "/api/v1/auth/me")).status).toBe(200);
    // A start after a clean stop has nothing to fold and writes no snapshot: a change made then, and a kill,
    // must still find the change in the log the next start reads.
    const after = await http(origin2, owner, "POST", "/api/v1/api-keys", { name: "after a clean start" });
    expect(after.status).toBe(201);
    second.child.kill("SIGKILL");
    await second.exit;
    const third = cli(["--port", "0", "--clock", "manual", "--quiet", "--state-file", file]);
    const origin3 = await listening(third);
    expect((await http(origin3, JSON.parse(after.text).key, "GET", "/api/v1/auth/me")).status).toBe(200);
    third.child.kill("SIGINT");
    expect((await third.exit).code).toBe(0);
  }, 90_000);

  it("exits 2 with a clear message on a corrupt or unknown-version file", async () => {
    const file = join(tmp.path, "corrupt.json");
    await writeFile(file, '{"format":"audience-research-sim/state","version":1,"scen');
    const bad = cli(["--port", "0", "--quiet", "--state-file", file]);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr()).toMatch(/error: state file .*corrupt\.json: not valid JSON/);
    await writeFile(file, JSON.stringify({ format: "audience-research-sim/state", version: 7 }));
    const future = cli(["--port", "0", "--quiet", "--state-file", file]);
    expect((await future.exit).code).toBe(2);
    expect(future.stderr()).toContain("unsupported state file version 7; this simulator reads version 1");
  }, 60_000);

  it(
    `never loses an acknowledged write when killed with SIGKILL at any moment (${KILL_MS / 1000} s)`,
    async () => {
      const file = join(tmp.path, "killed.json");
      const deadline = Date.now() + KILL_MS;
      /** Every API key name and clock move whose reply arrived, over every run so far. */
      const acknowledged = new Set<string>();
      /** Sandboxes whose creation was acknowledged, with the API key names made in each. */
      const sandboxes = new Map<string, { key: string; names: Set<string> }>();
      let advances = 0;
      let iterations = 0;
      let torn = 0;
      let startAt = Number.NaN;
      while (iterations < 4 || Date.now() < deadline) {
        iterations++;
        const run = cli(["--port", "0", "--clock", "manual", "--quiet", "--state-file", file]);
        const origin = await listening(run);
        if (/dropped \d+ incomplete record/.test(run.stderr())) torn++;
        const snap = parseSnapshot(await readFile(file, "utf8"));
        const owner = snap.manifest.users.owner?.apiKey as string;
        if (Number.isNaN(startAt)) startAt = snap.clock.now;
        // Whatever was acknowledged before the last kill is there, whatever moment it struck.
        const listed = await http(origin, owner, "GET", "/api/v1/api-keys");
        const names = new Set((JSON.parse(listed.text) as { name: string | null }[]).map((k) => k.name));
        const lost = [...acknowledged].filter((n) => !names.has(n));
        expect(lost, `acknowledged API keys lost after kill ${iterations - 1}`).toEqual([]);
        expect(snap.clock.now - startAt).toBeGreaterThanOrEqual(advances * 1000);
        // The same rule in every sandbox: made before the kill, it is there, with every key made in it.
        for (const [id, sb] of sandboxes) {
          const inside = await http(origin, sb.key, "GET", "/api/v1/api-keys");
          expect(inside.status, `sandbox ${id} lost after kill ${iterations - 1}`).toBe(200);
          const kept = new Set((JSON.parse(inside.text) as { name: string | null }[]).map((k) => k.name));
          expect(
            [...sb.names].filter((n) => !kept.has(n)),
            `keys of sandbox ${id}`,
          ).toEqual([]);
        }

        // Five writers at once, so that kills also fall among changes sharing one fsync; one of them makes a
        // sandbox and writes into it.
        let stop = false;
        const writers = [0, 1, 2, 3, 4].map(async (w) => {
          let sandbox: { key: string; names: Set<string> } | null = null;
          for (let i = 0; !stop; i++) {
            try {
              if (w === 4) {
                if (!sandbox) {
                  const made = await http(origin, "", "POST", "/__sim/sandboxes", {});
                  if (made.status !== 201) continue;
                  const body = JSON.parse(made.text) as { id: string; manifest: Manifest };
                  sandbox = { key: body.manifest.users.owner?.apiKey as string, names: new Set() };
                  sandboxes.set(body.id, sandbox);
                  continue;
                }
                const name = `s${iterations}-${i}`;
                const r = await http(origin, sandbox.key, "POST", "/api/v1/api-keys", { name });
                if (r.status === 201) sandbox.names.add(name);
              } else if (w === 3) {
                const r = await http(origin, "", "POST", "/__sim/clock/advance", { ms: 1000 });
                if (r.status === 200) advances++;
              } else {
                const name = `k${iterations}-${w}-${i}`;
                const r = await http(origin, owner, "POST", "/api/v1/api-keys", { name });
                if (r.status === 201) acknowledged.add(name);
              }
            } catch {
              return; // killed
            }
          }
        });
        await sleep(50 + Math.floor(Math.random() * 600));
        run.child.kill("SIGKILL");
        stop = true;
        expect((await run.exit).signal).toBe("SIGKILL");
        await Promise.all(writers);
      }
      const last = cli(["--port", "0", "--clock", "manual", "--quiet", "--state-file", file]);
      const origin = await listening(last);
      const owner = parseSnapshot(await readFile(file, "utf8")).manifest.users.owner?.apiKey as string;
      const names = new Set(
        (JSON.parse((await http(origin, owner, "GET", "/api/v1/api-keys")).text) as { name: string }[]).map(
          (k) => k.name,
        ),
      );
      expect([...acknowledged].filter((n) => !names.has(n))).toEqual([]);
      expect((await stopCli(last)).code).toBe(0);
      await checkLoads(await readFile(file, "utf8"));
      console.log(
        `SIGKILL: ${iterations} kills, ${acknowledged.size} acknowledged keys, ${advances} clock moves and ${sandboxes.size} sandboxes (${[...sandboxes.values()].reduce((n, s) => n + s.names.size, 0)} keys in them), all kept; ${torn} torn records dropped`,
      );
      expect(acknowledged.size).toBeGreaterThan(iterations);
    },
    KILL_MS + 120_000,
  );
});
