import { describe, expect, it } from "vitest";
import {
  audience,
  freshWorldEachTest,
  h,
  MAIN_MEMBERS,
  mind,
  ownedBy,
  path,
  refused,
  user,
} from "../../../testing/audiences.ts";
import { PRIVATE_MEMBERS } from "../../scenarios/default.ts";

freshWorldEachTest();

describe("POST /audiences/{audienceId}/duplicate", () => {
  const KEY = "x-service-idempotency-key";

  it("makes a private, independent copy of every member, with grounding, sources and formations", async () => {
    const s = h.sim.state;
    const src = audience("main");
    const r = await h.call("POST", path("main", "/duplicate"), { as: "teammate" });
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d.name).toBe(`${src.name} (copy)`);
    expect(d).toMatchObject({
      isPublic: false,
      isSharedWithTeam: false,
      isLinkSharingEnabled: false,
      publicShareId: null,
      currentMemberRole: "owner",
      calibration: { active: false },
      mindCount: MAIN_MEMBERS,
    });
    const copy = s.audiences.get(d.id)!;
    expect(copy.ownerId).toBe(h.id("users", "teammate"));
    expect(copy.collaborators).toEqual([]);
    expect(copy.research).toBeNull();
    expect(copy.grounding).toEqual(src.grounding);
    expect(copy.sources).toEqual(src.sources);
    expect(copy.validations.map((v) => v.status)).toEqual(["scored"]);
    expect(copy.validations[0]!.id).not.toBe(src.validations[0]!.id);
    // The copy sees its own uploaded files: its caller is its owner.
    expect(d.sources.files.map((f: { url: string }) => f.url)).toEqual(src.sources.files.map((f) => f.url));
    for (const [i, id] of copy.memberIds.entries()) {
      const original = mind(src.memberIds[i]!)!;
      const c = mind(id)!;
      expect(src.memberIds).not.toContain(id);
      expect(c.ownerId).toBe(h.id("users", "teammate"));
      expect(c).toMatchObject({ name: original.name, bio: original.bio, profile: original.profile });
      expect(c.training.status).toBe("completed");
    }
    // Formations: the shared ones and the teammate's own private one, with members remapped.
    const copied = [...s.formations.values()].filter((f) => f.audienceId === copy.id);
    expect(copied.map((f) => f.name).sort()).toEqual([
      "Buying roles",
      "Employer size (draft)",
      "Programming languages",
    ]);
    const originals = [...s.formations.values()].filter((f) => f.audienceId === src.id);
    for (const f of copied) {
      const o = originals.find((x) => x.name === f.name)!;
      expect(f.id).not.toBe(o.id);
      expect(f.status).toBe(o.status);
      expect(f.subgroups.map((g) => g.members.length)).toEqual(o.subgroups.map((g) => g.members.length));
      for (const g of f.subgroups) for (const m of g.members) expect(copy.memberIds).toContain(m.mindId);
    }
  });

  it("is independent: changing or deleting the copy leaves the original whole", async () => {
    const src = audience("main");
    const originalIds = [...src.memberIds];
    const names = originalIds.map((id) => mind(id)!.name);
    const d = (await h.call("POST", path("main", "/duplicate"), { as: "teammate" })).body.data;
    const copy = h.sim.state.audiences.get(d.id)!;
    mind(copy.memberIds[0]!)!.name = "Changed in the copy";
    copy.memberIds.pop();
    copy.grounding!.charts.pop();
    copy.sources.keywords.push("copy-only");
    expect(src.memberIds).toEqual(originalIds);
    expect(originalIds.map((id) => mind(id)!.name)).toEqual(names);
    expect(src.sources.keywords).not.toContain("copy-only");
    expect((await h.call("DELETE", `/api/v1/audiences/${d.id}`, { as: "teammate" })).status).toBe(204);
    for (const id of originalIds) expect(mind(id)).toBeDefined();
    expect((await h.call("GET", path("main"))).body.data.mindCount).toBe(MAIN_MEMBERS);
  });

  it("does not copy another user's private Formation, building Formations, running validations or calibration", async () => {
    const s = h.sim.state;
    const src = audience("main");
    src.calibrationActive = true;
    src.validations.push({ id: crypto.randomUUID(), status: "running", score: null, createdAt: 0, kpis: [] });
    const ready = s.formations.get(h.id("formations", "mainReady"))!;
    s.formations.set("building-one", { ...structuredClone(ready), id: "building-one", status: "building" });
    s.formations.set("deleted-one", { ...structuredClone(ready), id: "deleted-one", deletedAt: 1 });
    const d = (await h.call("POST", path("main", "/duplicate"), { as: "admin" })).body.data;
    expect(d.calibration.active).toBe(false);
    const copy = s.audiences.get(d.id)!;
    expect(copy.validations.map((v) => v.status)).toEqual(["scored"]);
    const copied = [...s.formations.values()].filter((f) => f.audienceId === copy.id);
    expect(copied.map((f) => f.name).sort()).toEqual(["Buying roles", "Programming languages"]);
    expect(copied.every((f) => f.creatorId === h.id("users", "admin"))).toBe(true);
  });

  it("replays the same copy with 200 for the same key, and makes a new copy for a new key", async () => {
    const first = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: "abc" } });
    expect(first.status).toBe(201);
    const minds = h.sim.state.minds.size;
    const replay = await h.call("POST", path("private", "/duplicate"), {
      headers: { [KEY]: "abc" },
      body: { name: "ignored on replay" },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.data.id).toBe(first.body.data.id);
    expect(replay.body.data.name).toBe(first.body.data.name);
    expect(h.sim.state.minds.size).toBe(minds);
    const other = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: "abd" } });
    expect(other.status).toBe(201);
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expect(h.sim.state.minds.size).toBe(minds + PRIVATE_MEMBERS);
  });

  it("scopes keys by caller and by Audience", async () => {
    const a = await h.call("POST", path("main", "/duplicate"), { as: "teammate", headers: { [KEY]: "k" } });
    const b = await h.call("POST", path("main", "/duplicate"), { as: "admin", headers: { [KEY]: "k" } });
    const c = await h.call("POST", path("public", "/duplicate"), {
      as: "publisher",
      headers: { [KEY]: "k" },
    });
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(new Set([a.body.data.id, b.body.data.id, c.body.data.id]).size).toBe(3);
  });

  it("makes a new copy when the key's earlier copy was deleted", async () => {
    const first = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: "again" } });
    await h.call("DELETE", `/api/v1/audiences/${first.body.data.id}`);
    const second = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: "again" } });
    expect(second.status).toBe(201);
    expect(second.body.data.id).not.toBe(first.body.data.id);
    const third = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: "again" } });
    expect(third.status).toBe(200);
    expect(third.body.data.id).toBe(second.body.data.id);
  });

  it.each([
    ["129 characters", "k".repeat(129)],
    ["blank", "   "],
  ])("ignores a %s key: every call makes a new copy", async (_n, key) => {
    const a = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: key } });
    const b = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: key } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).not.toBe(b.body.data.id);
    expect(h.sim.state.idempotency.size).toBe(0);
  });

  it("honours a key of exactly 128 characters", async () => {
    const key = "k".repeat(128);
    const a = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: key } });
    const b = await h.call("POST", path("private", "/duplicate"), { headers: { [KEY]: key } });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.data.id).toBe(a.body.data.id);
  });

  it.each([
    ["1 character", "a"],
    ["200 characters", "n".repeat(200)],
  ])("accepts a name of %s", async (_n, name) => {
    const r = await h.call("POST", path("private", "/duplicate"), { body: { name } });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe(name);
  });

  it.each([
    ["0 characters", { name: "" }, "name must be between 1 and 200 characters"],
    ["201 characters", { name: "n".repeat(201) }, "name must be between 1 and 200 characters"],
    ["a number", { name: 7 }, "name must be a string"],
    ["an array body", ["x"], "Request body must be a JSON object"],
  ])("refuses a name of %s with 400, changing nothing", async (_n, body, message) => {
    await refused("POST", path("private", "/duplicate"), { body, headers: { [KEY]: "n" } }, 400, message);
  });

  it("trims the name, and falls back to the default name when it is blank after trimming", async () => {
    const named = await h.call("POST", path("private", "/duplicate"), { body: { name: "  Spring  " } });
    expect(named.body.data.name).toBe("Spring");
    const blank = await h.call("POST", path("private", "/duplicate"), { body: { name: "   " } });
    expect(blank.status).toBe(201);
    expect(blank.body.data.name).toBe(`${audience("private").name} (copy)`);
  });

  it("accepts an empty object body and a missing body with the default name", async () => {
    const a = await h.call("POST", path("private", "/duplicate"), { body: {} });
    expect(a.status).toBe(201);
    expect(a.body.data.name).toBe(`${audience("private").name} (copy)`);
    const b = await h.call("POST", path("private", "/duplicate"));
    expect(b.status).toBe(201);
    expect(b.body.data.name).toBe(`${audience("private").name} (copy)`);
  });

  it("lets the owner duplicate main once, then answers 403 PLAN_LIMIT sparks when copies would pass 100 Minds", async () => {
    // The owner (premium: 100 Minds) owns main's members, private's and a loose Mind: one copy still fits.
    const before = ownedBy("owner");
    expect(before + MAIN_MEMBERS).toBeLessThanOrEqual(100);
    expect((await h.call("POST", path("main", "/duplicate"), { headers: { [KEY]: "first" } })).status).toBe(
      201,
    );
    const current = ownedBy("owner");
    expect(current).toBe(before + MAIN_MEMBERS);
    expect(current + MAIN_MEMBERS).toBeGreaterThan(100);
    const r = await refused("POST", path("main", "/duplicate"), { headers: { [KEY]: "second" } }, 403);
    expect(r.body.data).toEqual({
      code: "PLAN_LIMIT",
      limitType: "sparks",
      currentPlan: "premium",
      limit: 100,
      current,
    });
    expect(r.body.statusMessage).toBe("Individual plan limit reached");
  });

  it("uses an account's sparks override, and allows a copy that lands exactly on the allowance", async () => {
    user("admin").limits.sparks = MAIN_MEMBERS - 1;
    const r = await refused("POST", path("main", "/duplicate"), { as: "admin" }, 403);
    expect(r.body.data).toMatchObject({ limitType: "sparks", limit: MAIN_MEMBERS - 1, current: 0 });
    user("admin").limits.sparks = MAIN_MEMBERS;
    expect((await h.call("POST", path("main", "/duplicate"), { as: "admin" })).status).toBe(201);
  });

  it("answers 403 PLAN_LIMIT groupMembers when the copy would exceed the member cap", async () => {
    user("teammate").limits.groupMembers = 10;
    const r = await refused("POST", path("main", "/duplicate"), { as: "teammate" }, 403);
    expect(r.body.data).toEqual({
      code: "PLAN_LIMIT",
      limitType: "groupMembers",
      currentPlan: "team",
      limit: 10,
      current: MAIN_MEMBERS,
    });
  });

  it.each([
    ["outsider", "public"],
    ["owner", "public"],
    ["studyViewer", "main"],
  ])("answers 403 Access denied to %s, a viewer of %s without edit access", async (as, handle) => {
    await refused("POST", path(handle, "/duplicate"), { as, body: { name: "" } }, 403, "Access denied");
  });

  it.each([
    ["outsider", "private"],
    ["outsider", "main"],
    ["solo", "private"],
  ])("answers 404 to %s on %s", async (as, handle) => {
    const r = await refused("POST", path(handle, "/duplicate"), { as }, 404);
    expect(r.body.statusMessage).toBe("Audience not found");
  });

  it("answers 400 for malformed IDs and 401 without a key", async () => {
    await refused("POST", "/api/v1/audiences/xyz/duplicate", {}, 400, "Invalid audience ID format");
    await refused("POST", path("private", "/duplicate"), { as: null }, 401);
  });

  it("copies public Minds of others as private Minds the caller owns", async () => {
    audience("atCap").isSharedWithTeam = true;
    const r = await h.call("POST", path("atCap", "/duplicate"), { as: "teammate" });
    expect(r.status).toBe(201);
    const copy = h.sim.state.audiences.get(r.body.data.id)!;
    expect(copy.memberIds).toHaveLength(100);
    for (const id of copy.memberIds) {
      expect(mind(id)).toMatchObject({ ownerId: h.id("users", "teammate"), isPublic: false });
    }
  });
});
