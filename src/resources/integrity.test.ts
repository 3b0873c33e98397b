/**
 * A snapshot is input: one that would make the simulator serve what the contract forbids, or that names
 * records that are not there, is refused whole (every problem at its JSON pointer) and the world stays.
 * The property: any single field of a real snapshot changed to another value is either refused, or
 * loaded and then every read of every record, by every user, answers within the contract.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Harness, harness } from "../../testing/harness.ts";
import { BUYING_ROLES as HYPOTHESIS } from "../../testing/scenario-problems.ts";
import type { Snapshot } from "../core/persistence/snapshot.ts";
import { defineScenario } from "../scenarios/document/load.ts";

/** A small world with a record of every kind a read serves: team, collaborator, Formation, export, study. */
const WORLD = defineScenario({
  name: "integrity",
  teams: { t: { name: "Team T" } },
  users: { dev: { plan: "premium", team: "t" }, mate: { plan: "team", team: "t" }, guest: {} },
  minds: { star: { owner: "dev", name: "Ada Star", training: "running" } },
  audiences: {
    a: {
      owner: "dev",
      topic: "Hospital procurement leads",
      members: ["star", { generate: 5 }],
      sharedWithTeam: true,
      public: true,
      collaborators: [{ user: "guest", role: "member" }],
      grounding: true,
    },
  },
  formations: { f: { audience: "a", name: "Roles", hypothesis: HYPOTHESIS } },
  studies: { s: { owner: "dev", name: "Study", audiences: ["a"], members: ["guest"] } },
  setup: [
    { as: "dev", method: "POST", path: "/api/v1/audiences/{audiences.a}/export", body: { format: "md" } },
  ],
});

async function world(): Promise<{ h: Harness; snap: Snapshot }> {
  const h = await harness({ scenario: WORLD });
  return { h, snap: h.sim.snapshot() };
}

/** The entry of `table` whose record has `id`, as [index, record]. */
function entryOf(snap: Snapshot, table: string, id: string): [number, Record<string, unknown>] {
  const entries = snap.state.tables[table] ?? [];
  const i = entries.findIndex(([key]) => key === id);
  return [i, entries[i]?.[1] as Record<string, unknown>];
}

describe("loading a snapshot", () => {
  it("refuses a record of the wrong type, and one that names nobody, each at its pointer, whole", async () => {
    // What refers to the mistyped Audience (its Formation, its Study) is not reported again.
    const { h, snap } = await world();
    const before = h.sim.snapshotText();
    const [i, audience] = entryOf(snap, "audiences", h.id("audiences", "a"));
    audience.name = 12345;
    const [j, mind] = entryOf(snap, "minds", h.id("minds", "star"));
    mind.ownerId = "00000000-0000-4000-8000-000000000000";
    const r = await h.call("PUT", "/__sim/snapshot", { body: snap, as: null, unchecked: true });
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toMatch(/^Invalid snapshot: 2 problems in its world/);
    expect(r.body.data.problems).toEqual([
      { path: `/state/tables/audiences/${i}/1/name`, message: "must be string" },
      {
        path: `/state/tables/minds/${j}/1/ownerId`,
        message: "names no user (00000000-0000-4000-8000-000000000000)",
      },
    ]);
    expect(h.sim.snapshotText()).toBe(before);
  });

  it("refuses what the contract would not serve and what breaks the world's invariants", async () => {
    const { h, snap } = await world();
    const [i, audience] = entryOf(snap, "audiences", h.id("audiences", "a"));
    const members = audience.memberIds as string[];
    audience.memberIds = [...members, members[0]];
    audience.createdAt = 1e300;
    const [k] = entryOf(snap, "formations", h.id("formations", "f"));
    (snap.state.tables.formations?.[k]?.[1] as Record<string, unknown>).audienceId = "gone";
    snap.state.tables.apiKeys?.push(["k1", { id: "k2" }]);
    snap.state.extra.nonsense = [];
    const problems = await refusal(h, snap);
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: `/state/tables/audiences/${i}/1/memberIds`, message: "names a Mind twice" },
        { path: `/state/tables/audiences/${i}/1/createdAt`, message: "is no instant a date-time can state" },
        { path: `/state/tables/formations/${k}/1/audienceId`, message: "names no Audience (gone)" },
        { path: expect.stringMatching(/^\/state\/tables\/apiKeys\/\d+\/1$/), message: expect.any(String) },
        { path: "/state/extra/nonsense", message: "is no table of this simulator" },
      ]),
    );
  });

  it("holds: a field changed to another value is refused, or every read answers within the contract", async () => {
    const { h, snap } = await world();
    const leaves = leavesOf(snap);
    const values = fc.constantFrom<unknown>(
      12345,
      -1,
      1e300,
      "",
      "x".repeat(3000),
      "not-a-uuid",
      null,
      true,
      [],
      {},
      undefined,
    );
    let loaded = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...leaves), values, async (leaf, value) => {
        const bad = structuredClone(snap);
        setAt(bad, leaf, value);
        try {
          h.sim.restore(bad);
        } catch (error) {
          if ((error as Error).name === "SnapshotError") return;
          throw error;
        }
        loaded++;
        await readEverything(h);
      }),
      { seed: 34, numRuns: 400 },
    );
    // Most single changes are refused; the ones that load are harmless (a name, a flag), and were read.
    expect(loaded).toBeGreaterThan(0);
  }, 120_000);
});

async function refusal(h: Harness, snap: Snapshot): Promise<{ path: string; message: string }[]> {
  const r = await h.call("PUT", "/__sim/snapshot", { body: snap, as: null, unchecked: true });
  expect(r.status).toBe(400);
  return r.body.data.problems;
}

/** Every read the contract has, of every record of the world, as every user with a key. */
async function readEverything(h: Harness): Promise<void> {
  const state = h.sim.state;
  const keys = Object.values(h.sim.manifest().users).map((u) => u.apiKey);
  for (const key of keys) {
    const as = key;
    await h.call("GET", "/api/v1/auth/me", { as });
    await h.call("GET", "/api/v1/api-keys", { as });
    for (const a of state.audiences.keys()) {
      const base = `/api/v1/audiences/${a}`;
      for (const path of ["", "?members=preview", "/collaborators", "/filter-attributes", "/formations"])
        await h.call("GET", `${base}${path}`, { as });
      await h.call("GET", `${base}/progress`, { as });
      await h.call("GET", `${base}/export-status?kind=brief&format=md`, { as });
      for (const f of state.formations.keys()) await h.call("GET", `${base}/formations/${f}`, { as });
    }
  }
}

type Leaf = (string | number)[];

/** The path of every leaf value of every record of the snapshot's state (arrays and objects descended). */
function leavesOf(snap: Snapshot): Leaf[] {
  const out: Leaf[] = [];
  const walk = (value: unknown, path: Leaf) => {
    if (value !== null && typeof value === "object" && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, Array.isArray(value) ? Number(k) : k]);
    } else out.push(path);
  };
  for (const [group, tables] of Object.entries(snap.state))
    for (const [name, entries] of Object.entries(tables as Record<string, unknown[]>))
      (entries as unknown[]).forEach((entry, i) => {
        walk((entry as unknown[])[1], ["state", group, name, i, 1]);
      });
  return out;
}

function setAt(root: unknown, path: Leaf, value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined && !Array.isArray(node)) delete node[last];
  else node[last] = value;
}
