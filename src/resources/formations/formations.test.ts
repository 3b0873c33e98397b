import { describe, expect, it } from "vitest";
import {
  base,
  create,
  fid,
  freshWorldEachTest,
  h,
  hypothesis,
  insert,
  listAll,
  one,
  pendingBuild,
  record,
  stall,
} from "../../../testing/formations.ts";
import { expectError, MAIN_VIEWERS, recordingHarness } from "../../../testing/harness.ts";
import { BUYING_ROLE_HYPOTHESIS, FAILED_HYPOTHESIS } from "../../scenarios/default.ts";
import { BUILD_TOTAL_MS } from "./formation-builds.ts";
import { GENERIC_FAILURE_REASON } from "./formation-view.ts";
import { RECOVERY_LIMIT } from "./formations.ts";

freshWorldEachTest();

describe("GET /audiences/{id}/formations: access and visibility", () => {
  it("answers 404 Formation not found when the Audience is missing or not viewable", async () => {
    const r = await h.call("GET", base("main"), { as: "outsider" });
    expectError(r, 404, "Formation not found");
    const missing = await h.call("GET", `/api/v1/audiences/${crypto.randomUUID()}/formations`);
    expectError(missing, 404, "Formation not found");
  });

  it("answers 400 for malformed audience IDs", async () => {
    const r = await h.call("GET", "/api/v1/audiences/not-a-uuid/formations");
    expectError(r, 400, "Invalid audience ID format");
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
      memberCount: h.audience("main")?.memberIds.length,
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

  it("re-queues at most RECOVERY_LIMIT of the oldest stalled builds per listing", async () => {
    // Building, with no job left to finish them: stalled. Put in newest first, a minute apart.
    const start = h.sim.clock.now() - 3_600_000;
    const n = RECOVERY_LIMIT + 5;
    const at = (i: number) => start + (n - 1 - i) * 60_000;
    const newestFirst = Array.from({ length: n }, (_, i) =>
      insert("main", { status: "building", createdAt: at(i), updatedAt: at(i) }),
    );
    const stalled = [...newestFirst].reverse();
    await h.call("GET", base("main"), { as: "studyViewer" });
    const queued = stalled.filter((f) => pendingBuild(f.id));
    expect(queued.map((f) => f.id)).toEqual(stalled.slice(0, RECOVERY_LIMIT).map((f) => f.id));
    // The next first page takes the rest.
    await h.call("GET", base("main"), { as: "studyViewer" });
    expect(stalled.every((f) => pendingBuild(f.id))).toBe(true);
  });

  it("is a pure read when there is nothing to recover, and a recorded change when there is", async () => {
    const { h: own, recorded } = await recordingHarness({ verifyKeptAnswers: false });
    const main = `/api/v1/audiences/${own.id("audiences", "main")}`;
    const state = own.sim.state;
    expect((await own.call("GET", `${main}/formations`)).status).toBe(200);
    // The first listing seeded main's default Formations: a change, recorded.
    expect(recorded.filter((r) => r.endsWith(`${main}/formations`))).toHaveLength(1);
    const detail = await own.call("GET", main);
    (state.audiences.get(own.id("audiences", "main")) as { name: string }).name = "Behind the core's back";
    expect((await own.call("GET", `${main}/formations`)).status).toBe(200);
    // Nothing left to recover: not recorded, and what the detail read rendered is still in place.
    expect(recorded.filter((r) => r.endsWith(`${main}/formations`))).toHaveLength(1);
    expect((await own.call("GET", main)).text).toBe(detail.text);
    // A build with nothing left to finish it: the next listing re-queues it, as a change again.
    const building = [...state.formations.values()].find(
      (f) => f.audienceId === own.id("audiences", "main") && f.status === "building",
    );
    if (!building) throw new Error("no building Formation on main");
    own.sim.clock.cancel((j) => (j.payload as { formationId?: string }).formationId === building.id);
    expect((await own.call("GET", `${main}/formations`)).status).toBe(200);
    expect(recorded.filter((r) => r.endsWith(`${main}/formations`))).toHaveLength(2);
    expect(
      own.sim.clock
        .pending()
        .some((j) => (j.payload as { formationId?: string }).formationId === building.id),
    ).toBe(true);
  });

  it("answers the listing even when recovery fails", async () => {
    const audience = h.audience("main");
    if (!audience) throw new Error("no main");
    // A corrupt chart makes seeding throw.
    audience.grounding = { charts: [{ dimension: "industry" } as never], sources: [] };
    const r = await h.call("GET", base("main"));
    expect(r.status).toBe(200);
    expect(r.body.data.map((f: { id: string }) => f.id)).toContain(fid("mainReady"));
  });
});

describe("GET /audiences/{id}/formations/{formationId}", () => {
  // A shared Formation shows to every viewer of the Audience, a private one to its creator only.
  type Reader = [formation: string, as: string, status: number];
  const readers: Reader[] = [
    ...MAIN_VIEWERS.map((as): Reader => ["mainReady", as, 200]),
    ["mainReady", "outsider", 404],
    ["teammatePrivate", "teammate", 200],
    ...["owner", "admin", "studyViewer"].map((as): Reader => ["teammatePrivate", as, 404]),
  ];
  it.each(readers)("shows %s to %s: %i", async (formation, as, status) => {
    const r = await h.call("GET", one("main", fid(formation)), { as });
    expect(r.status).toBe(status);
    if (status === 404) expect(r.body.statusMessage).toBe("Formation not found");
  });

  it("answers 404 for another Audience's Formation, a deleted one and an unknown one", async () => {
    const other = await h.call("GET", one("private", fid("mainReady")));
    expectError(other, 404, "Formation not found");
    expect((await h.call("GET", one("main", crypto.randomUUID()))).status).toBe(404);
    record(fid("mainFailed")).deletedAt = h.sim.clock.now();
    expect((await h.call("GET", one("main", fid("mainFailed")))).status).toBe(404);
  });

  it("answers 400 for a malformed formation ID", async () => {
    const r = await h.call("GET", one("main", "nope"));
    expectError(r, 400, "Invalid formation ID format");
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
    const main = h.audience("main");
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
