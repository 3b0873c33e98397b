/**
 * Hundreds of scenario documents broken on purpose (fast-check: one to three breakages of a valid document,
 * each of a kind the format refuses), sent inline to `POST /__sim/reset` and `POST /__sim/sandboxes`: every
 * one is a 400 in the envelope listing problems that each name a JSON path, never a 5xx or a crash, and the
 * running world (its digest, its manifest) and the set of sandboxes stay as they were.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stateDigest } from "../core/world/digest.ts";
import { createSandboxes, createSimulator } from "../simulator.ts";

const HYPOTHESIS = {
  intent: "Split by role",
  subgroups: [
    { id: "deciders", label: "Decision makers", definition: "Decision maker or budget holder" },
    { id: "users", label: "End users", definition: "End user living with the outcome" },
  ],
};

/** Valid: every part of the format in use, small enough to build in a few milliseconds. */
const VALID = {
  name: "fuzz-base",
  seed: 5,
  teams: { t: { name: "Team" } },
  users: {
    own: { plan: "premium", team: "t", apiKeys: [{ name: "k" }] },
    mate: { plan: "team", team: "t", follows: ["pub"] },
    free: { plan: "free" },
  },
  minds: { m1: { owner: "own", attributes: { country: "DE" }, training: "queued" } },
  audiences: {
    a: {
      owner: "own",
      members: ["m1", { generate: 3 }],
      sharedWithTeam: true,
      collaborators: [{ user: "free", role: "member" }],
      grounding: true,
    },
    pub: { owner: "mate", public: true, members: [{ generate: 2, public: true }] },
    b: { owner: "free", members: [{ membersOf: "pub" }] },
  },
  formations: { f: { audience: "a", name: "Roles", hypothesis: HYPOTHESIS } },
  studies: { s: { owner: "own", name: "Study", audiences: ["a"], members: ["free"] } },
  prices: { p: { kind: "credits", plan: null, currency: "eur", unitAmount: 100, name: "Credits" } },
  setup: [{ advanceMs: 10 }, { as: "own", method: "GET", path: "/api/v1/audiences/{audiences.a}" }],
};

type Doc = any;
/** Ways to break a document, each of which the format refuses whatever else the document holds. */
const BREAKAGES: ((d: Doc, junk: unknown) => void)[] = [
  (d) => (d.users.own.plan = "gold"),
  (d, junk) => (d.users.own[`x${String(junk).length}`] = junk),
  (d) => (d.users.mate.team = "nowhere"),
  (d) => (d.users.free.subscriptionActive = true),
  (d) => (d.users["1bad"] = {}),
  (d) => (d.audiences.a.owner = "ghost"),
  (d) => (d.audiences.a.members = [...d.audiences.a.members, "ghostMind"]),
  (d) => (d.audiences.b.members = [{ generate: 26 }]),
  (d) => (d.audiences.a.members = [{ generate: 0 }]),
  (d) => (d.audiences.pub.public = false),
  (d) => (d.audiences.b.sharedWithTeam = true),
  (d) => (d.audiences.a.collaborators = [{ user: "own", role: "member" }]),
  (d) => (d.audiences.a.collaborators[0].role = "owner"),
  (d) => {
    d.audiences.empty = { owner: "own" };
    d.formations.g = { audience: "empty", name: "x", hypothesis: HYPOTHESIS };
  },
  (d) => (d.formations.f.audience = "nothing"),
  (d) => (d.formations.f.hypothesis = { ...HYPOTHESIS, subgroups: [HYPOTHESIS.subgroups[0]] }),
  (d) =>
    (d.formations.f.hypothesis = {
      ...HYPOTHESIS,
      subgroups: [{ id: "__other", label: "x", definition: "y" }, HYPOTHESIS.subgroups[1]],
    }),
  (d) => (d.formations.f.creator = "ghost"),
  (d) => (d.studies.s.audiences = ["zzz"]),
  (d) => (d.prices.p.plan = "team"),
  (d) => (d.prices.p.id = "not-a-price"),
  (d) => (d.setup = [...d.setup, { as: "nobody", method: "GET", path: "/api/v1/auth/me" }]),
  (d) => (d.setup = [{ as: "own", method: "GET", path: "/api/v1/audiences/{audiences.none}" }]),
  (d) => (d.setup = [{ as: "own", method: "DELETE", path: "/api/v1/audiences/{audiences.pub}" }]),
  (d) => (d.setup = [{ advanceMs: -1 }]),
  (d) => (d.seed = 2 ** 32),
  (d) => (d.startTime = "yesterday"),
  (d) => (d.extends = "no-such-scenario"),
  (d, junk) => (d.minds.m1.owner = junk),
  (d, junk) =>
    (d.audiences = junk === null || typeof junk !== "object" || Array.isArray(junk) ? 7 : { a: junk }),
];

const broken = fc
  .tuple(
    fc.uniqueArray(fc.nat({ max: BREAKAGES.length - 1 }), { minLength: 1, maxLength: 3 }),
    fc.oneof(fc.jsonValue(), fc.string()),
  )
  .map(([which, junk]) => {
    const d = structuredClone(VALID);
    // In order: the last breakages replace whole parts that earlier ones reach into.
    for (const i of which.sort((x, y) => x - y)) (BREAKAGES[i] as (d: Doc, junk: unknown) => void)(d, junk);
    return d;
  });

async function post(host: ReturnType<typeof createSandboxes>, path: string, body: unknown) {
  const res = await host.fetch(
    new Request(`http://sim.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

function expectRefused(r: { status: number; body: any }, path: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ statusCode: 400, error: true, url: path });
  const problems = r.body.data?.problems;
  expect(Array.isArray(problems) && problems.length > 0, JSON.stringify(r.body)).toBe(true);
  for (const p of problems) {
    expect(typeof p.path).toBe("string");
    expect(p.path === "" || p.path.startsWith("/")).toBe(true);
    expect(typeof p.message === "string" && p.message.length > 0).toBe(true);
  }
}

describe("scenario documents broken on purpose", () => {
  it("the valid base document is served", async () => {
    const host = createSandboxes({ clock: "manual" });
    expect((await post(host, "/__sim/reset", { scenario: VALID })).status).toBe(200);
  });

  it("are each refused by POST /__sim/reset with path-bearing problems, and change nothing", async () => {
    const bugs: unknown[] = [];
    const main = createSimulator({ clock: "manual", onError: (e) => bugs.push(e) });
    const host = createSandboxes({ clock: "manual" }, main);
    await main.ready;
    const digest = stateDigest(main.state, { includeVolatile: true });
    const manifest = JSON.stringify(main.manifest());
    await fc.assert(
      fc.asyncProperty(broken, async (doc) => {
        expectRefused(await post(host, "/__sim/reset", { scenario: doc }), "/__sim/reset");
      }),
      { numRuns: 300 },
    );
    expect(bugs).toEqual([]);
    expect(stateDigest(main.state, { includeVolatile: true })).toBe(digest);
    expect(JSON.stringify(main.manifest())).toBe(manifest);
  });

  it("are each refused by POST /__sim/sandboxes, and no sandbox is made", async () => {
    const host = createSandboxes({ clock: "manual" });
    await fc.assert(
      fc.asyncProperty(broken, async (doc) => {
        expectRefused(await post(host, "/__sim/sandboxes", { scenario: doc }), "/__sim/sandboxes");
      }),
      { numRuns: 100 },
    );
    expect(host.size).toBe(0);
  });
});
