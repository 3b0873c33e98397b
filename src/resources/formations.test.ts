import { beforeEach, describe, expect, it } from "vitest";
import { BUYING_ROLE_HYPOTHESIS, FAILED_HYPOTHESIS } from "../../scenarios/default.ts";
import type { FormationRecord } from "../core/state.ts";
import { type CallResult, type Harness, harness } from "../testing/harness.ts";
import { BUILD_TOTAL_MS, JOB_COMPLETE, JOB_STEP } from "./formation-builds.ts";
import { GENERIC_FAILURE_REASON } from "./formation-view.ts";
import { compactName, NAME_MAX } from "./formations.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const base = (audience: string): string => `/api/v1/audiences/${h.id("audiences", audience)}/formations`;
const one = (audience: string, formation: string): string => `${base(audience)}/${formation}`;
const fid = (handle: string): string => h.id("formations", handle);
const record = (id: string): FormationRecord => {
  const f = h.sim.state.formations.get(id);
  if (!f) throw new Error(`no formation ${id}`);
  return f;
};

function hypothesis(n: number, intent = "Split by favourite season") {
  return {
    intent,
    subgroups: Array.from({ length: n }, (_, i) => ({
      id: `g${i + 1}`,
      label: `Group ${i + 1}`,
      definition: `Members of group ${i + 1}`,
    })),
  };
}

/** Every row of a listing, following `nextOffset`. */
async function listAll(as: string, audience: string, limit = 100) {
  const rows: { id: string; status: string; createdAt: string }[] = [];
  let offset: number | null = 0;
  let total: number | null = null;
  while (offset !== null) {
    const r: CallResult = await h.call("GET", `${base(audience)}?limit=${limit}&offset=${offset}`, { as });
    expect(r.status).toBe(200);
    total ??= r.body.pagination.total;
    expect(r.body.pagination.total).toBe(total);
    rows.push(...r.body.data);
    offset = r.body.pagination.nextOffset;
  }
  return { rows, total: total ?? 0 };
}

/** A Formation put straight into state, for shapes the API cannot create (auto dimensions, legacy data). */
function insert(audience: string, over: Partial<FormationRecord>): FormationRecord {
  const now = h.sim.clock.now();
  const f: FormationRecord = {
    id: crypto.randomUUID(),
    audienceId: h.id("audiences", audience),
    creatorId: h.id("users", "owner"),
    name: "Inserted",
    visibility: "shared",
    status: "ready",
    autoDimension: null,
    hypothesis: hypothesis(2),
    subgroups: [],
    progress: null,
    failureReason: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    buildSeq: 1,
    ...over,
  };
  h.sim.state.formations.set(f.id, f);
  return f;
}

/** Drops the queued build jobs of a Formation: it is `building` with nothing left to finish it. */
function stall(id: string): void {
  h.sim.clock.cancel(
    (j) =>
      (j.kind === JOB_STEP || j.kind === JOB_COMPLETE) &&
      (j.payload as { formationId: string }).formationId === id,
  );
}

const pendingBuild = (id: string): boolean =>
  h.sim.clock
    .pending()
    .some((j) => j.kind === JOB_COMPLETE && (j.payload as { formationId: string }).formationId === id);

async function create(audience: string, body: unknown, as = "owner") {
  return h.call("POST", base(audience), { as, body });
}

describe("GET /audiences/{id}/formations: access and visibility", () => {
  it("answers 404 Formation not found when the Audience is missing or not viewable", async () => {
    const r = await h.call("GET", base("main"), { as: "outsider" });
    expect(r.status).toBe(404);
    expect(r.body.statusMessage).toBe("Formation not found");
    const missing = await h.call("GET", `/api/v1/audiences/${crypto.randomUUID()}/formations`);
    expect(missing.status).toBe(404);
    expect(missing.body.statusMessage).toBe("Formation not found");
  });

  it("answers 400 for malformed audience IDs", async () => {
    const r = await h.call("GET", "/api/v1/audiences/not-a-uuid/formations");
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toBe("Invalid audience ID format");
  });

  it("shows the teammate's private Formation to the teammate only", async () => {
    const ownerView = (await listAll("owner", "main")).rows.map((f) => f.id);
    expect(ownerView).toContain(fid("mainReady"));
    expect(ownerView).toContain(fid("mainFailed"));
    expect(ownerView).not.toContain(fid("teammatePrivate"));
    const teammateView = (await listAll("teammate", "main")).rows.map((f) => f.id);
    expect(teammateView).toContain(fid("teammatePrivate"));
    expect(teammateView).toContain(fid("mainReady"));
    for (const who of ["admin", "member", "studyViewer"]) {
      expect((await listAll(who, "main")).rows.map((f) => f.id)).not.toContain(fid("teammatePrivate"));
    }
  });

  it("lists a viewer's own private Formation to that viewer only", async () => {
    const mine = await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS }, "studyViewer");
    expect(mine.status).toBe(200);
    expect((await listAll("studyViewer", "main")).rows.map((f) => f.id)).toContain(mine.body.data.id);
    expect((await listAll("owner", "main")).rows.map((f) => f.id)).not.toContain(mine.body.data.id);
  });

  it("shows the summary fields and excludes soft-deleted Formations", async () => {
    const list = await h.call("GET", base("main"));
    const ready = list.body.data.find((f: { id: string }) => f.id === fid("mainReady"));
    const stored = record(fid("mainReady"));
    expect(ready).toMatchObject({
      id: stored.id,
      name: "Buying roles",
      status: "ready",
      visibility: "shared",
      createdAt: new Date(stored.createdAt).toISOString(),
      updatedAt: new Date(stored.updatedAt).toISOString(),
      memberCount: h.sim.state.audiences.get(h.id("audiences", "main"))?.memberIds.length,
    });
    expect(ready.subgroups).toEqual(
      stored.subgroups.map((g) => ({ id: g.id, label: g.label, memberCount: g.members.length })),
    );
    expect((await h.call("DELETE", one("main", fid("mainReady")))).status).toBe(204);
    expect((await listAll("owner", "main")).rows.map((f) => f.id)).not.toContain(fid("mainReady"));
  });
});

describe("GET /audiences/{id}/formations: order, de-duplication and pagination", () => {
  it("lists newest first, the ID breaking ties", async () => {
    for (let i = 0; i < 3; i++)
      expect((await create("main", { hypothesis: hypothesis(2) })).status).toBe(200);
    h.sim.advance(1000);
    for (let i = 0; i < 2; i++)
      expect((await create("main", { hypothesis: hypothesis(3) })).status).toBe(200);
    const { rows } = await listAll("owner", "main");
    const keys = rows.map((f) => [Date.parse(f.createdAt), f.id] as const);
    const sorted = [...keys].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1));
    expect(keys).toEqual(sorted);
    // Ties really occur: several Formations share one creation instant.
    expect(new Set(keys.map((k) => k[0])).size).toBeLessThan(keys.length);
  });

  it("returns one row per auto dimension: ready over building over failed, then the newest", async () => {
    const t = h.sim.clock.now();
    insert("private", { autoDimension: "industry", status: "failed", createdAt: t + 3 });
    insert("private", { autoDimension: "industry", status: "building", createdAt: t + 2 });
    const readyOld = insert("private", { autoDimension: "industry", status: "ready", createdAt: t + 1 });
    insert("private", { autoDimension: "role", status: "failed", createdAt: t + 5 });
    const building = insert("private", { autoDimension: "role", status: "building", createdAt: t + 1 });
    insert("private", { autoDimension: "country", status: "ready", createdAt: t + 1 });
    const readyNew = insert("private", { autoDimension: "country", status: "ready", createdAt: t + 2 });
    const user = insert("private", { status: "failed", createdAt: t + 9 });
    // The owner's listing also seeds the default split (dimension `default`), which does not collide.
    const { rows, total } = await listAll("owner", "private", 1);
    const ids = rows.map((f) => f.id);
    expect(total).toBe(rows.length);
    expect(ids).toContain(readyOld.id);
    expect(ids).toContain(building.id);
    expect(ids).toContain(readyNew.id);
    expect(ids).toContain(user.id);
    const dims = rows.flatMap((f) => record(f.id).autoDimension ?? []);
    expect(dims.sort()).toEqual([...new Set(dims)].sort());
  });

  it("follows nextOffset one row at a time to the same rows as one full page", async () => {
    for (let i = 0; i < 4; i++) await create("main", { hypothesis: hypothesis(2 + i) });
    const full = await h.call("GET", base("main"));
    expect(full.body.pagination).toMatchObject({ limit: 100, offset: 0, hasMore: false, nextOffset: null });
    expect(full.body.pagination.total).toBe(full.body.data.length);
    const paged = await listAll("owner", "main", 1);
    expect(paged.total).toBe(full.body.pagination.total);
    expect(paged.rows.map((f) => f.id)).toEqual(full.body.data.map((f: { id: string }) => f.id));
  });

  it("does the pagination arithmetic", async () => {
    const total = (await h.call("GET", base("main"))).body.pagination.total as number;
    expect(total).toBeGreaterThan(3);
    const first = await h.call("GET", `${base("main")}?limit=2`);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.pagination).toEqual({ total, limit: 2, offset: 0, hasMore: true, nextOffset: 2 });
    const last = await h.call("GET", `${base("main")}?limit=2&offset=${total - 1}`);
    expect(last.body.data).toHaveLength(1);
    expect(last.body.pagination).toEqual({
      total,
      limit: 2,
      offset: total - 1,
      hasMore: false,
      nextOffset: null,
    });
    const beyond = await h.call("GET", `${base("main")}?offset=${total + 10}`);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toMatchObject({ total, hasMore: false, nextOffset: null });
    expect((await h.call("GET", `${base("main")}?limit=100`)).status).toBe(200);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=abc", "limit"],
    ["limit=1.5", "limit"],
    ["offset=-1", "offset"],
    ["offset=x", "offset"],
  ])("answers 400 for %s", async (query, name) => {
    const r = await h.call("GET", `${base("main")}?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toContain(name);
  });
});

describe("GET /audiences/{id}/formations: recovery at offset 0", () => {
  it("seeds the default and grounding-derived Formations for collaborators, once", async () => {
    const before = h.sim.state.formations.size;
    await h.call("GET", `${base("main")}?offset=1`);
    expect(h.sim.state.formations.size).toBe(before);
    await h.call("GET", base("main"), { as: "studyViewer" });
    expect(h.sim.state.formations.size).toBe(before);
    const r = await h.call("GET", base("main"), { as: "member" });
    const seeded = [...h.sim.state.formations.values()].filter((f) => f.autoDimension !== null);
    expect(seeded.length).toBeGreaterThan(0);
    for (const f of seeded) {
      expect(f.visibility).toBe("shared");
      expect(f.creatorId).toBe(h.id("users", "owner"));
    }
    expect(r.body.data.some((f: { status: string }) => f.status === "building")).toBe(true);
    const after = h.sim.state.formations.size;
    await h.call("GET", base("main"));
    expect(h.sim.state.formations.size).toBe(after);
    h.sim.advance(BUILD_TOTAL_MS);
    const done = await listAll("owner", "main");
    expect(done.rows.every((f) => f.status !== "building")).toBe(true);
  });

  it("re-queues a stalled build, which then finishes on the clock", async () => {
    const created = await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS });
    const id = created.body.data.id as string;
    stall(id);
    h.sim.advance(BUILD_TOTAL_MS * 2);
    expect(record(id).status).toBe("building");
    await h.call("GET", `${base("main")}?offset=1`);
    expect(pendingBuild(id)).toBe(false);
    await h.call("GET", base("main"), { as: "studyViewer" });
    expect(pendingBuild(id)).toBe(true);
    h.sim.advance(BUILD_TOTAL_MS);
    const got = await h.call("GET", one("main", id));
    expect(got.body.data.status).toBe("ready");
    expect(got.body.data.progress).toBeNull();
  });

  it("answers the listing even when recovery fails", async () => {
    const audience = h.sim.state.audiences.get(h.id("audiences", "main"));
    if (!audience) throw new Error("no main");
    // A corrupt chart makes seeding throw.
    audience.grounding = { charts: [{ dimension: "industry" } as never], sources: [] };
    const r = await h.call("GET", base("main"));
    expect(r.status).toBe(200);
    expect(r.body.data.map((f: { id: string }) => f.id)).toContain(fid("mainReady"));
  });
});

describe("POST /audiences/{id}/formations", () => {
  it("creates a shared Formation that builds on the clock", async () => {
    const r = await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS, name: "  Roles  " });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: expect.any(String), name: "Roles", status: "building" });
    expect(r.headers.get("cache-control")).toContain("no-store");
    const id = r.body.data.id as string;
    const building = (await h.call("GET", one("main", id))).body.data;
    expect(building.status).toBe("building");
    expect(building.visibility).toBe("shared");
    expect(building.subgroups).toEqual([]);
    expect(building.hypothesis).toEqual(BUYING_ROLE_HYPOTHESIS);
    expect(building.progress).toEqual({ phase: expect.any(String), done: 0, total: 45, percent: 0 });
    expect(building).not.toHaveProperty("failureReason");
    h.sim.advance(1500);
    const mid = (await h.call("GET", one("main", id))).body.data;
    expect(mid.progress.done).toBeGreaterThan(0);
    expect(mid.progress.percent).toBe(Math.floor((mid.progress.done * 100) / mid.progress.total));
    h.sim.advance(BUILD_TOTAL_MS);
    const done = (await h.call("GET", one("main", id))).body.data;
    expect(done.status).toBe("ready");
    expect(done.progress).toBeNull();
    const assigned = done.subgroups.flatMap((g: { members: { mindId: string }[] }) => g.members);
    expect(assigned).toHaveLength(45);
    for (const g of done.subgroups) {
      expect(g.memberCount).toBe(g.members.length);
      for (const m of g.members) expect(m.confidence).toBeGreaterThan(0);
    }
  });

  it("stores trimmed values and names the Formation after its intent by default", async () => {
    const padded = {
      intent: "   Split   by\n  season   ",
      subgroups: [
        { id: "  summer ", label: " Summer people ", definition: "  Love the heat " },
        { id: "winter", label: "Winter people", definition: "Love the cold" },
      ],
    };
    const r = await create("main", { hypothesis: padded });
    expect(r.body.data.name).toBe("Split by season");
    const got = (await h.call("GET", one("main", r.body.data.id))).body.data;
    expect(got.hypothesis).toEqual({
      intent: "Split   by\n  season",
      subgroups: [
        { id: "summer", label: "Summer people", definition: "Love the heat" },
        { id: "winter", label: "Winter people", definition: "Love the cold" },
      ],
    });
    const blankName = await create("main", { hypothesis: hypothesis(2), name: "   " });
    expect(blankName.body.data.name).toBe("Split by favourite season");
  });

  it("compacts a long intent at a word boundary with an ellipsis", async () => {
    const intent =
      "Separate the buyers who champion new collaboration software from those who resist any change at all";
    const r = await create("main", { hypothesis: hypothesis(2, intent) });
    const name = r.body.data.name as string;
    expect(name.length).toBeLessThanOrEqual(NAME_MAX);
    expect(name.endsWith("…")).toBe(true);
    expect(intent.startsWith(name.slice(0, -1))).toBe(true);
    expect(intent[name.length - 1]).toBe(" ");
    expect(compactName("x".repeat(80))).toBe(`${"x".repeat(NAME_MAX - 1)}…`);
    expect(compactName(`${"a".repeat(NAME_MAX - 1)} tail`)).toBe(`${"a".repeat(NAME_MAX - 1)}…`);
    expect(compactName("a".repeat(NAME_MAX))).toBe("a".repeat(NAME_MAX));
  });

  it("creates private Formations for viewers who are not collaborators", async () => {
    const viewer = await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS }, "studyViewer");
    expect(viewer.status).toBe(200);
    expect(record(viewer.body.data.id).visibility).toBe("private");
    const outsider = await create("public", { hypothesis: hypothesis(2) }, "outsider");
    expect(outsider.status).toBe(200);
    expect(record(outsider.body.data.id).visibility).toBe("private");
    const publisher = await create("public", { hypothesis: hypothesis(2) }, "publisher");
    expect(record(publisher.body.data.id).visibility).toBe("shared");
  });

  it("answers 404 Audience not found to callers who cannot view it, before looking at the body", async () => {
    for (const body of [{ hypothesis: hypothesis(2) }, { hypothesis: hypothesis(1) }]) {
      const r = await create("main", body, "outsider");
      expect(r.status).toBe(404);
      expect(r.body.statusMessage).toBe("Audience not found");
    }
    const bad = await h.call("POST", base("main"), { as: "outsider", raw: "{not json" });
    expect(bad.status).toBe(404);
  });

  describe("400 Invalid Formation input", () => {
    const cases: [string, unknown][] = [
      ["no body", undefined],
      ["a body that is not an object", ["hypothesis"]],
      ["no hypothesis", { name: "x" }],
      ["a hypothesis that is not an object", { hypothesis: "split" }],
      ["no intent", { hypothesis: { subgroups: hypothesis(2).subgroups } }],
      ["a blank intent", { hypothesis: { ...hypothesis(2), intent: " \t\n " } }],
      ["an empty intent", { hypothesis: { ...hypothesis(2), intent: "" } }],
      ["one subgroup", { hypothesis: hypothesis(1) }],
      ["no subgroups", { hypothesis: hypothesis(0) }],
      ["16 subgroups", { hypothesis: hypothesis(16) }],
      ["subgroups not an array", { hypothesis: { intent: "x", subgroups: {} } }],
      ["a subgroup that is not an object", { hypothesis: { intent: "x", subgroups: ["a", "b"] } }],
      ["a name that is not a string", { hypothesis: hypothesis(2), name: 42 }],
      ["a null name", { hypothesis: hypothesis(2), name: null }],
    ];
    for (const key of ["id", "label", "definition"] as const) {
      for (const blank of ["", "   "]) {
        const h2 = hypothesis(2);
        h2.subgroups[1] = { ...(h2.subgroups[1] as (typeof h2.subgroups)[number]), [key]: blank };
        cases.push([`a blank subgroup ${key} (${JSON.stringify(blank)})`, { hypothesis: h2 }]);
      }
      const h3 = hypothesis(2) as { intent: string; subgroups: Record<string, unknown>[] };
      delete h3.subgroups[0]?.[key];
      cases.push([`a missing subgroup ${key}`, { hypothesis: h3 }]);
    }
    for (const reserved of [
      "unanswered",
      "__unanswered",
      "__other",
      " unanswered",
      "__other  ",
      "\t__unanswered\n",
    ]) {
      const h4 = hypothesis(3);
      (h4.subgroups[2] as { id: string }).id = reserved;
      cases.push([`the reserved id ${JSON.stringify(reserved)}`, { hypothesis: h4 }]);
    }
    const dupIds = hypothesis(3);
    (dupIds.subgroups[2] as { id: string }).id = "g1";
    cases.push(["duplicate ids", { hypothesis: dupIds }]);
    const dupIdsTrim = hypothesis(3);
    (dupIdsTrim.subgroups[2] as { id: string }).id = "  g1 ";
    cases.push(["ids duplicate after trimming", { hypothesis: dupIdsTrim }]);
    const dupLabels = hypothesis(3);
    (dupLabels.subgroups[2] as { label: string }).label = " Group 1  ";
    cases.push(["labels duplicate after trimming", { hypothesis: dupLabels }]);

    it.each(cases)("for %s, and nothing is created", async (_name, body) => {
      const before = h.sim.state.formations.size;
      const r = await h.call("POST", base("main"), body === undefined ? {} : { body });
      expect(r.status).toBe(400);
      expect(r.body.statusMessage).toBe("Invalid Formation input");
      expect(h.sim.state.formations.size).toBe(before);
    });
  });

  it.each([2, 15])("accepts %i subgroups", async (n) => {
    const r = await create("main", { hypothesis: hypothesis(n) });
    expect(r.status).toBe(200);
    expect(record(r.body.data.id).hypothesis).toEqual(hypothesis(n));
  });

  it("compares reserved ids exactly after trimming: other spellings are ordinary ids", async () => {
    const h5 = hypothesis(3);
    (h5.subgroups[0] as { id: string }).id = "Unanswered";
    (h5.subgroups[1] as { id: string }).id = "__OTHER";
    (h5.subgroups[2] as { id: string }).id = "_other";
    expect((await create("main", { hypothesis: h5 })).status).toBe(200);
  });

  it("answers Invalid JSON body for malformed JSON", async () => {
    const r = await h.call("POST", base("main"), {
      raw: '{"hypothesis": ',
      headers: { "content-type": "application/json" },
    });
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toBe("Invalid JSON body");
  });

  it("refuses an Audience without members, after the input checks", async () => {
    const r = await create("empty", { hypothesis: hypothesis(2) });
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toBe("Audience has no members to categorize");
    const invalid = await create("empty", { hypothesis: hypothesis(1) });
    expect(invalid.body.statusMessage).toBe("Invalid Formation input");
  });

  it("refuses more than 1000 members with FORMATION_CAP", async () => {
    const before = h.sim.state.formations.size;
    const r = await create("large", { hypothesis: hypothesis(2) });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ code: "FORMATION_CAP" });
    expect(r.body.statusMessage).toBe("Formations support at most 1000 members");
    expect(h.sim.state.formations.size).toBe(before);
  });

  it("answers 413 for a body over 64 KiB", async () => {
    const body = { hypothesis: hypothesis(2), name: "n".repeat(64 * 1024) };
    const r = await create("main", body);
    expect(r.status).toBe(413);
    const justUnder = { hypothesis: hypothesis(2), name: "n".repeat(60 * 1024) };
    expect((await create("main", justUnder)).status).toBe(200);
  });
});

describe("GET /audiences/{id}/formations/{formationId}", () => {
  it.each([
    ["owner", 200],
    ["admin", 200],
    ["member", 200],
    ["teammate", 200],
    ["studyViewer", 200],
    ["outsider", 404],
  ])("shows a shared Formation to %s: %i", async (as, status) => {
    const r = await h.call("GET", one("main", fid("mainReady")), { as });
    expect(r.status).toBe(status);
    if (status === 404) expect(r.body.statusMessage).toBe("Formation not found");
  });

  it.each([
    ["teammate", 200],
    ["owner", 404],
    ["admin", 404],
    ["studyViewer", 404],
  ])("shows a private Formation to its creator only (%s: %i)", async (as, status) => {
    const r = await h.call("GET", one("main", fid("teammatePrivate")), { as });
    expect(r.status).toBe(status);
  });

  it("answers 404 for another Audience's Formation, a deleted one and an unknown one", async () => {
    const other = await h.call("GET", one("private", fid("mainReady")));
    expect(other.status).toBe(404);
    expect(other.body.statusMessage).toBe("Formation not found");
    expect((await h.call("GET", one("main", crypto.randomUUID()))).status).toBe(404);
    record(fid("mainFailed")).deletedAt = h.sim.clock.now();
    expect((await h.call("GET", one("main", fid("mainFailed")))).status).toBe(404);
  });

  it("answers 400 for a malformed formation ID", async () => {
    const r = await h.call("GET", one("main", "nope"));
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toBe("Invalid formation ID format");
  });

  it("presents a ready Formation per the contract", async () => {
    const got = (await h.call("GET", one("main", fid("mainReady")))).body.data;
    const stored = record(fid("mainReady"));
    expect(got).toEqual({
      id: stored.id,
      name: stored.name,
      status: "ready",
      progress: null,
      hypothesis: BUYING_ROLE_HYPOTHESIS,
      subgroups: stored.subgroups.map((g) => ({
        id: g.id,
        label: g.label,
        definition: g.definition,
        memberCount: g.members.length,
        members: g.members,
      })),
      visibility: "shared",
      createdAt: new Date(stored.createdAt).toISOString(),
      updatedAt: new Date(stored.updatedAt).toISOString(),
    });
  });

  it("shows a failed Formation's safe reason only", async () => {
    const got = (await h.call("GET", one("main", fid("mainFailed")))).body.data;
    expect(got.status).toBe("failed");
    expect(got.failureReason).toBe("Fewer than two subgroups received members");
    expect(got.hypothesis).toEqual(FAILED_HYPOTHESIS);
    record(fid("mainFailed")).failureReason = "TypeError: cannot read 'x' at classify (builds.ts:42)";
    const redacted = (await h.call("GET", one("main", fid("mainFailed")))).body.data;
    expect(redacted.failureReason).toBe(GENERIC_FAILURE_REASON);
    expect(JSON.stringify(redacted)).not.toContain("TypeError");
  });

  it("shows malformed progress as null and an invalid legacy hypothesis as {}", async () => {
    const f = insert("main", {
      status: "building",
      progress: { phase: "sorting", done: 5, total: 2 },
      hypothesis: {
        intent: "legacy",
        subgroups: [{ id: "only", label: "Only", definition: "One" }],
      } as never,
    });
    const got = (await h.call("GET", one("main", f.id))).body.data;
    expect(got.progress).toBeNull();
    expect(got.hypothesis).toEqual({});
    for (const progress of [{ phase: 3, done: 0, total: 1 }, { done: 1 }, "half", [1, 2]]) {
      f.progress = progress as never;
      expect((await h.call("GET", one("main", f.id))).body.data.progress).toBeNull();
    }
    f.hypothesis = {
      intent: "ok",
      subgroups: [
        { id: "__other", label: "A", definition: "a" },
        { id: "b", label: "B", definition: "b" },
      ],
    };
    expect((await h.call("GET", one("main", f.id))).body.data.hypothesis).toEqual({});
  });
});

describe("DELETE and recompute: who may mutate", () => {
  const matrix: [string, string, number][] = [
    ["mainReady", "owner", 204],
    ["mainReady", "admin", 204],
    ["mainReady", "member", 204],
    ["mainReady", "teammate", 204],
    ["mainReady", "studyViewer", 404],
    ["mainReady", "outsider", 404],
    ["teammatePrivate", "teammate", 204],
    ["teammatePrivate", "owner", 404],
    ["teammatePrivate", "admin", 404],
  ];

  it.each(matrix)("DELETE %s as %s: %i", async (handle, as, status) => {
    const r = await h.call("DELETE", one("main", fid(handle)), { as });
    expect(r.status).toBe(status);
    if (status === 404) {
      expect(r.body.statusMessage).toBe("Formation not found");
      expect(record(fid(handle)).deletedAt).toBeNull();
    } else {
      expect(r.text).toBe("");
      expect(record(fid(handle)).deletedAt).toBe(h.sim.clock.now());
    }
  });

  it.each(matrix)("recompute %s as %s: %i", async (handle, as, status) => {
    const r = await h.call("POST", `${one("main", fid(handle))}/recompute`, { as });
    expect(r.status).toBe(status === 204 ? 200 : 404);
    if (status === 204) expect(r.body.data).toEqual({ id: fid(handle), status: "building" });
    else expect(record(fid(handle)).status).toBe("ready");
  });

  it("lets a viewer who is not a collaborator mutate their own private Formation only", async () => {
    const id = (await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS }, "studyViewer")).body.data.id;
    h.sim.advance(BUILD_TOTAL_MS);
    expect((await h.call("POST", `${one("main", id)}/recompute`, { as: "owner" })).status).toBe(404);
    expect((await h.call("DELETE", one("main", id), { as: "owner" })).status).toBe(404);
    expect((await h.call("POST", `${one("main", id)}/recompute`, { as: "studyViewer" })).status).toBe(200);
    expect((await h.call("DELETE", one("main", id), { as: "studyViewer" })).status).toBe(204);
  });

  it("makes a deleted Formation gone for every operation, and its build never finishes", async () => {
    const id = (await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS })).body.data.id;
    expect((await h.call("DELETE", one("main", id))).status).toBe(204);
    expect((await h.call("DELETE", one("main", id))).status).toBe(404);
    expect((await h.call("POST", `${one("main", id)}/recompute`)).status).toBe(404);
    expect((await h.call("GET", one("main", id))).status).toBe(404);
    h.sim.advance(BUILD_TOTAL_MS);
    expect(record(id).status).toBe("building");
  });

  it("answers 404 through another Audience's path", async () => {
    expect((await h.call("DELETE", one("private", fid("mainReady")))).status).toBe(404);
    expect((await h.call("POST", `${one("private", fid("mainReady"))}/recompute`)).status).toBe(404);
  });
});

describe("POST .../recompute", () => {
  it("keeps the old subgroups while building and swaps them in place when done", async () => {
    const main = h.sim.state.audiences.get(h.id("audiences", "main"));
    if (!main) throw new Error("no main");
    const before = (await h.call("GET", one("main", fid("mainReady")))).body.data;
    main.memberIds.push(h.id("minds", "ownLoose"));
    const r = await h.call("POST", `${one("main", fid("mainReady"))}/recompute`);
    expect(r.body.data.status).toBe("building");
    const during = (await h.call("GET", one("main", fid("mainReady")))).body.data;
    expect(during.status).toBe("building");
    expect(during.progress).toMatchObject({ done: 0, total: 46, percent: 0 });
    expect(during.subgroups).toEqual(before.subgroups);
    h.sim.advance(BUILD_TOTAL_MS);
    const after = (await h.call("GET", one("main", fid("mainReady")))).body.data;
    expect(after.status).toBe("ready");
    expect(after.progress).toBeNull();
    const assigned = after.subgroups.flatMap((g: { members: { mindId: string }[] }) =>
      g.members.map((m) => m.mindId),
    );
    expect(assigned).toContain(h.id("minds", "ownLoose"));
    expect(assigned).toHaveLength(46);
  });

  it("rebuilds a failed Formation", async () => {
    const r = await h.call("POST", `${one("main", fid("mainFailed"))}/recompute`);
    expect(r.body.data).toEqual({ id: fid("mainFailed"), status: "building" });
    const during = (await h.call("GET", one("main", fid("mainFailed")))).body.data;
    expect(during).not.toHaveProperty("failureReason");
    h.sim.advance(BUILD_TOTAL_MS);
    expect(["ready", "failed"]).toContain(record(fid("mainFailed")).status);
  });

  it("leaves a running build alone and restarts a stuck one", async () => {
    const id = (await create("main", { hypothesis: BUYING_ROLE_HYPOTHESIS })).body.data.id;
    const seq = record(id).buildSeq;
    const again = await h.call("POST", `${one("main", id)}/recompute`);
    expect(again.body.data).toEqual({ id, status: "building" });
    expect(record(id).buildSeq).toBe(seq);
    stall(id);
    const stuck = await h.call("POST", `${one("main", id)}/recompute`);
    expect(stuck.body.data.status).toBe("building");
    expect(record(id).buildSeq).toBe(seq + 1);
    h.sim.advance(BUILD_TOTAL_MS);
    expect(record(id).status).toBe("ready");
  });

  it("fails the build of an invalid legacy hypothesis with a safe reason", async () => {
    const f = insert("main", {
      hypothesis: { intent: "", subgroups: [{ id: "a", label: "A", definition: "a" }] } as never,
    });
    const r = await h.call("POST", `${one("main", f.id)}/recompute`);
    expect(r.body.data.status).toBe("building");
    h.sim.advance(BUILD_TOTAL_MS);
    const got = (await h.call("GET", one("main", f.id))).body.data;
    expect(got.status).toBe("failed");
    expect(got.hypothesis).toEqual({});
    expect(got.failureReason).toBe("The stored hypothesis is not usable");
  });
});
