import { beforeEach, describe, expect, it } from "vitest";
import { isUploadedFileUrl } from "../../fixtures/index.ts";
import { MAIN_GENERATED_MEMBERS, PRIVATE_MEMBERS } from "../../scenarios/default.ts";
import { type AudienceRecord, type MindRecord, table, type UserRecord } from "../core/state.ts";
import { type Harness, harness } from "../testing/harness.ts";
import { COVER_IMAGE_DELAY_MS } from "./audiences.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const MAIN_MEMBERS = MAIN_GENERATED_MEMBERS + 1;
const path = (handle: string, suffix = ""): string =>
  `/api/v1/audiences/${h.id("audiences", handle)}${suffix}`;
const audience = (handle: string): AudienceRecord => h.sim.state.audiences.get(h.id("audiences", handle))!;
const user = (handle: string): UserRecord => h.sim.state.users.get(h.id("users", handle))!;
const mind = (id: string): MindRecord | undefined => h.sim.state.minds.get(id);
const ownedBy = (handle: string): number =>
  [...h.sim.state.minds.values()].filter((m) => m.ownerId === h.id("users", handle)).length;

/** Everything a request could change, except API keys' `lastUsedAt` (every authenticated call sets it). */
function snapshot(): string {
  const s = h.sim.state;
  const table = <T>(m: Map<string, T>) => [...m.entries()];
  return JSON.stringify({
    users: table(s.users),
    teams: table(s.teams),
    minds: table(s.minds),
    audiences: table(s.audiences),
    studies: table(s.studies),
    formations: table(s.formations),
    idempotency: table(s.idempotency),
    extra: [...s.extra.entries()].map(([k, v]) => [k, table(v)]),
    jobs: h.sim.clock.pending(),
  });
}

/** Runs a request that must be refused and checks that it changed nothing. */
async function refused(method: string, url: string, opts: Parameters<Harness["call"]>[2], status: number) {
  const before = snapshot();
  const r = await h.call(method, url, opts);
  expect(r.status).toBe(status);
  expect(snapshot()).toBe(before);
  return r;
}

const SHARING = ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"] as const;

describe("GET /audiences/{audienceId}", () => {
  it.each([
    ["owner", "main", "owner"],
    ["admin", "main", "admin"],
    ["member", "main", "member"],
    ["teammate", "main", "team_member"],
    ["studyViewer", "main", "public_viewer"],
    ["publisher", "public", "owner"],
    ["outsider", "public", "public_viewer"],
    ["owner", "public", "public_viewer"],
    ["solo", "soloAudience", "owner"],
  ])("%s reads %s as %s", async (as, handle, role) => {
    const r = await h.call("GET", path(handle), { as });
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(h.id("audiences", handle));
    expect(r.body.data.currentMemberRole).toBe(role);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    for (const f of SHARING) {
      if (role === "public_viewer") expect(r.body.data).not.toHaveProperty(f);
      else expect(r.body.data).toHaveProperty(f);
    }
  });

  it.each([
    ["outsider", "main"],
    ["publisher", "main"],
    ["solo", "private"],
    ["teammate", "private"],
    ["admin", "private"],
    ["studyViewer", "private"],
    ["owner", "soloAudience"],
  ])("%s gets 404 for %s", async (as, handle) => {
    const r = await refused("GET", path(handle), { as }, 404);
    expect(r.body.statusMessage).toBe("Audience not found");
  });

  it("gives a pending invitee nothing, and a team member nothing once team sharing is off", async () => {
    expect((await h.call("GET", path("main"), { as: "outsider" })).status).toBe(404);
    audience("main").isSharedWithTeam = false;
    expect((await h.call("GET", path("main"), { as: "teammate" })).status).toBe(404);
  });

  it("answers 404 for an unknown Audience, 400 for malformed IDs, 401 without a key", async () => {
    const missing = await h.call("GET", "/api/v1/audiences/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.statusMessage).toBe("Audience not found");
    const bad = await h.call("GET", "/api/v1/audiences/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.body.statusMessage).toBe("Invalid audience ID format");
    const empty = await h.call("GET", "/api/v1/audiences/");
    expect(empty.status).toBe(400);
    expect(empty.body.statusMessage).toBe("Audience ID is required");
    expect((await h.call("GET", path("main"), { as: null })).status).toBe(401);
  });

  it("shows the owner the complete detail: members, grounding, sources, baselines, calibration", async () => {
    const r = await h.call("GET", path("main"));
    const d = r.body.data;
    const a = audience("main");
    expect(d.name).toBe(a.name);
    expect(d.mindCount).toBe(MAIN_MEMBERS);
    expect(d.minds.map((m: { id: string }) => m.id)).toEqual(a.memberIds);
    expect(d.isPublic).toBe(false);
    expect(d.isSharedWithTeam).toBe(true);
    expect(d.isLinkSharingEnabled).toBe(true);
    expect(d.publicShareId).toBe(a.publicShareId);
    expect(d.calibration).toEqual({ active: false });
    expect(d.grounding.charts.length).toBeGreaterThan(0);
    expect(Object.keys(d.sources).sort()).toEqual(["adjustments", "brief", "files", "keywords", "links"]);
    expect(d.createdAt).toBe(new Date(a.createdAt).toISOString());
    expect(d.updatedAt).toBe(new Date(a.updatedAt).toISOString());
    const first = d.minds[0];
    const record = mind(first.id)!;
    expect(first).toMatchObject({
      name: record.name,
      headline: record.headline,
      bio: record.bio,
      profileImageUrl: record.profileImageUrl,
      attributes: record.attributes,
      profile: record.profile,
    });
    expect(first.reviewedFields).toEqual(expect.arrayContaining(["name", "headline", "bio"]));
    const country = d.baselineDistributions.find((b: { dimension: string }) => b.dimension === "country");
    const withCountry = a.memberIds.filter((id) => mind(id)?.attributes.country !== undefined).length;
    expect(country.missing).toBe(MAIN_MEMBERS - withCountry);
    expect(country.distribution.reduce((n: number, v: { count: number }) => n + v.count, 0)).toBe(
      withCountry,
    );
  });

  it("reports calibration.active while a recalibration runs", async () => {
    audience("main").calibrationActive = true;
    expect((await h.call("GET", path("main"))).body.data.calibration).toEqual({ active: true });
  });

  it("returns null grounding when none is stored", async () => {
    expect((await h.call("GET", path("private"))).body.data.grounding).toBeNull();
  });

  it("shows a member whose profile image has not arrived yet with a null profileImageUrl", async () => {
    const a = audience("main");
    mind(a.memberIds[0]!)!.profileImageUrl = null;
    const r = await h.call("GET", path("main"));
    expect(r.body.data.minds[0].profileImageUrl).toBeNull();
  });

  it("members=preview gives display profiles without reviewed-field metadata", async () => {
    const r = await h.call("GET", `${path("main")}?members=preview`);
    expect(r.status).toBe(200);
    expect(r.body.data.mindCount).toBe(MAIN_MEMBERS);
    for (const m of r.body.data.minds) {
      expect(Object.keys(m).sort()).toEqual(["attributes", "headline", "id", "name", "profileImageUrl"]);
    }
    const full = await h.call("GET", path("main"));
    expect(full.body.data.minds[0]).toHaveProperty("reviewedFields");
    expect(full.body.data.minds[0]).toHaveProperty("bio");
  });

  it.each(["full", "", "PREVIEW"])("refuses members=%s with 400", async (value) => {
    const r = await h.call("GET", `${path("main")}?members=${value}`);
    expect(r.status).toBe(400);
  });

  describe("uploaded-file URLs", () => {
    const uploaded = (d: any): string[] =>
      [...d.sources.files, ...(d.grounding?.sources ?? [])]
        .map((x: { url: string | null }) => x.url)
        .filter((u: string | null): u is string => u !== null && isUploadedFileUrl(u));

    it("are shown to every collaborator", async () => {
      for (const as of ["owner", "admin", "member", "teammate"]) {
        const d = (await h.call("GET", path("main"), { as })).body.data;
        expect(uploaded(d).length).toBeGreaterThanOrEqual(2);
      }
    });

    it("are redacted to null for a Study viewer, in sources and in grounding sources", async () => {
      const a = audience("main");
      const d = (await h.call("GET", path("main"), { as: "studyViewer" })).body.data;
      expect(uploaded(d)).toEqual([]);
      a.sources.files.forEach((f, i) => {
        expect(d.sources.files[i].url).toBe(isUploadedFileUrl(f.url) ? null : f.url);
        expect(d.sources.files[i].name).toBe(f.name);
      });
      a.grounding!.sources.forEach((s, i) => {
        expect(d.grounding.sources[i].url).toBe(isUploadedFileUrl(s.url) ? null : s.url);
      });
      expect(a.sources.files.some((f) => isUploadedFileUrl(f.url))).toBe(true);
    });

    it("are redacted for public viewers of a public Audience but not for its owner", async () => {
      audience("main").isPublic = true;
      const outsider = (await h.call("GET", path("main"), { as: "outsider" })).body.data;
      expect(outsider.currentMemberRole).toBe("public_viewer");
      expect(uploaded(outsider)).toEqual([]);
      const owner = (await h.call("GET", path("main"))).body.data;
      expect(uploaded(owner).length).toBeGreaterThan(0);
    });
  });
});

describe("PUT /audiences/{audienceId}", () => {
  it("renames with a trimmed name and answers the Audience with every sharing field", async () => {
    const before = audience("main").updatedAt;
    h.sim.advance(5000);
    const r = await h.call("PUT", path("main"), { body: { name: "  Renamed buyers  " } });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({
      id: h.id("audiences", "main"),
      name: "Renamed buyers",
      mindCount: MAIN_MEMBERS,
      isPublic: false,
      isSharedWithTeam: true,
      isLinkSharingEnabled: true,
      publicShareId: audience("main").publicShareId,
      currentMemberRole: "owner",
    });
    expect(d.minds).toHaveLength(MAIN_MEMBERS);
    expect(Date.parse(d.updatedAt)).toBe(h.sim.clock.now());
    expect(h.sim.clock.now()).toBeGreaterThan(before);
    expect(audience("main").name).toBe("Renamed buyers");
    expect((await h.call("GET", path("main"))).body.data.name).toBe("Renamed buyers");
  });

  it.each([
    ["admin", "admin"],
    ["member", "member"],
    ["teammate", "team_member"],
  ])("lets collaborator %s rename it (role %s)", async (as, role) => {
    const r = await h.call("PUT", path("main"), { as, body: { name: `By ${as}` } });
    expect(r.status).toBe(200);
    expect(r.body.data.currentMemberRole).toBe(role);
    expect(audience("main").name).toBe(`By ${as}`);
  });

  it.each([
    ["missing name", {}],
    ["empty name", { name: "" }],
    ["blank name", { name: "   \t " }],
    ["numeric name", { name: 42 }],
    ["null name", { name: null }],
    ["array name", { name: ["x"] }],
    ["flags without a name", { isPublic: true }],
    ["a non-object body", [{ name: "x" }]],
  ])("answers 400 name is required for %s, and changes nothing", async (_n, body) => {
    const r = await refused("PUT", path("main"), { body }, 400);
    expect(r.body.statusMessage).toBe("name is required");
  });

  it("answers 400 name is required without a body", async () => {
    const r = await refused("PUT", path("main"), {}, 400);
    expect(r.body.statusMessage).toBe("name is required");
  });

  it("ignores sharing flags that are not booleans", async () => {
    const r = await h.call("PUT", path("main"), {
      body: { name: "Same", isPublic: "true", isSharedWithTeam: 0 },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.isPublic).toBe(false);
    expect(r.body.data.isSharedWithTeam).toBe(true);
    const r2 = await h.call("PUT", path("main"), {
      as: "admin",
      body: { name: "Same", isSharedWithTeam: "false", isPublic: null },
    });
    expect(r2.status).toBe(200);
    expect(audience("main").isSharedWithTeam).toBe(true);
    expect(audience("main").isPublic).toBe(false);
  });

  it("lets the owner turn team sharing off and on", async () => {
    const off = await h.call("PUT", path("main"), { body: { name: "x", isSharedWithTeam: false } });
    expect(off.body.data.isSharedWithTeam).toBe(false);
    expect((await h.call("GET", path("main"), { as: "teammate" })).status).toBe(404);
    const on = await h.call("PUT", path("main"), { body: { name: "x", isSharedWithTeam: true } });
    expect(on.body.data.isSharedWithTeam).toBe(true);
    expect((await h.call("GET", path("main"), { as: "teammate" })).status).toBe(200);
  });

  it.each([
    "admin",
    "member",
    "teammate",
  ])("answers 403 TEAM_SHARE_OWNER_ONLY when %s changes team sharing", async (as) => {
    const r = await refused("PUT", path("main"), { as, body: { name: "x", isSharedWithTeam: false } }, 403);
    expect(r.body.data.code).toBe("TEAM_SHARE_OWNER_ONLY");
  });

  it("lets a non-owner send the current team-sharing value, which is not a change", async () => {
    const r = await h.call("PUT", path("main"), { as: "admin", body: { name: "x", isSharedWithTeam: true } });
    expect(r.status).toBe(200);
    expect(r.body.data.isSharedWithTeam).toBe(true);
  });

  it("answers 400 TEAM_REQUIRED when an owner without a team shares with the team", async () => {
    const r = await refused(
      "PUT",
      path("soloAudience"),
      { as: "solo", body: { name: "x", isSharedWithTeam: true } },
      400,
    );
    expect(r.body.data.code).toBe("TEAM_REQUIRED");
    expect(r.body.statusMessage).toBe("Sharing requires the owner to be in a team");
    const ok = await h.call("PUT", path("soloAudience"), {
      as: "solo",
      body: { name: "x", isSharedWithTeam: false },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.isSharedWithTeam).toBe(false);
  });

  it("echoes isLinkSharingEnabled and publicShareId, which cannot be changed here", async () => {
    const a = audience("main");
    const share = a.publicShareId;
    const r = await h.call("PUT", path("main"), {
      body: { name: "x", isLinkSharingEnabled: false, publicShareId: null },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.isLinkSharingEnabled).toBe(true);
    expect(r.body.data.publicShareId).toBe(share);
    expect(a.isLinkSharingEnabled).toBe(true);
    const solo = await h.call("PUT", path("soloAudience"), {
      as: "solo",
      body: { name: "x", isLinkSharingEnabled: true },
    });
    expect(solo.body.data.isLinkSharingEnabled).toBe(false);
    expect(solo.body.data.publicShareId).toBeNull();
  });

  it("makes an Audience public and queues a cover image that is done after about two seconds", async () => {
    const r = await h.call("PUT", path("private"), { body: { name: "x", isPublic: true } });
    expect(r.status).toBe(200);
    expect(r.body.data.isPublic).toBe(true);
    expect(audience("private").coverImageQueued).toBe(true);
    expect((await h.call("GET", path("private"), { as: "outsider" })).body.data.currentMemberRole).toBe(
      "public_viewer",
    );
    h.sim.advance(COVER_IMAGE_DELAY_MS - 1);
    expect(audience("private").coverImageQueued).toBe(true);
    h.sim.advance(1);
    expect(audience("private").coverImageQueued).toBe(false);
    const back = await h.call("PUT", path("private"), { body: { name: "x", isPublic: false } });
    expect(back.body.data.isPublic).toBe(false);
    expect((await h.call("GET", path("private"), { as: "outsider" })).status).toBe(404);
  });

  it("lets a non-owner collaborator change isPublic", async () => {
    const r = await h.call("PUT", path("main"), { as: "member", body: { name: "x", isPublic: true } });
    expect(r.body.data.isPublic).toBe(true);
  });

  it("does not queue another cover image for an Audience that is already public", async () => {
    const jobs = h.sim.clock.pending().length;
    await h.call("PUT", path("public"), { as: "publisher", body: { name: "x", isPublic: true } });
    expect(audience("public").coverImageQueued).toBe(false);
    expect(h.sim.clock.pending()).toHaveLength(jobs);
  });

  it.each([
    ["studyViewer", "main"],
    ["outsider", "public"],
    ["owner", "public"],
    ["outsider", "main"],
    ["solo", "private"],
  ])("answers 404 to %s on %s (no edit access) before looking at the body", async (as, handle) => {
    for (const body of [{ name: "x" }, {}]) {
      const r = await refused("PUT", path(handle), { as, body }, 404);
      expect(r.body.statusMessage).toBe("Audience not found");
    }
  });

  it("answers 400 for a malformed ID", async () => {
    const r = await h.call("PUT", "/api/v1/audiences/123", { body: { name: "x" } });
    expect(r.status).toBe(400);
    expect(r.body.statusMessage).toBe("Invalid audience ID format");
  });
});

describe("DELETE /audiences/{audienceId}", () => {
  it("deletes the owner's exclusive Minds, keeps shared and foreign ones, and cleans every link", async () => {
    const s = h.sim.state;
    const a = audience("main");
    const mainId = a.id;
    const [inTwo, ...rest] = a.memberIds;
    audience("private").memberIds.push(inTwo!);
    const foreign = h.id("minds", "publicMind");
    a.memberIds.push(foreign);
    user("outsider").following.push(mainId);
    const formations = [...s.formations.values()].filter((f) => f.audienceId === mainId).map((f) => f.id);
    expect(formations.length).toBe(3);
    const study = [...s.studies.values()].find((x) => x.audienceIds.includes(mainId))!;

    const r = await h.call("DELETE", path("main"));
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(s.audiences.has(mainId)).toBe(false);
    for (const id of rest) expect(mind(id)).toBeUndefined();
    expect(mind(inTwo!)).toBeDefined();
    expect(mind(foreign)).toBeDefined();
    for (const id of formations) expect(s.formations.has(id)).toBe(false);
    expect(study.audienceIds).not.toContain(mainId);
    expect(user("outsider").following).not.toContain(mainId);
    expect((await h.call("GET", `/api/v1/audiences/${mainId}`)).status).toBe(404);
    expect((await h.call("DELETE", `/api/v1/audiences/${mainId}`)).status).toBe(404);
    expect((await h.call("GET", path("private"))).body.data.minds.map((m: { id: string }) => m.id)).toContain(
      inTwo,
    );
  });

  it("keeps Minds owned by others (the publisher's public Minds in atCap)", async () => {
    const members = [...audience("atCap").memberIds];
    expect((await h.call("DELETE", path("atCap"))).status).toBe(204);
    for (const id of members) expect(mind(id)).toBeDefined();
  });

  it("drops deleted Minds from other Audiences' Formations", async () => {
    const s = h.sim.state;
    const doomed = audience("private").memberIds[0]!;
    const ready = s.formations.get(h.id("formations", "mainReady"))!;
    ready.subgroups[0]!.members.push({ mindId: doomed, confidence: 0.5 });
    expect((await h.call("DELETE", path("private"))).status).toBe(204);
    expect(mind(doomed)).toBeUndefined();
    for (const sg of ready.subgroups) expect(sg.members.map((m) => m.mindId)).not.toContain(doomed);
  });

  it("drops other modules' records keyed by the deleted Audience or its deleted Minds", async () => {
    const t = table<string>(h.sim.state, "test.records");
    const doomed = audience("private").memberIds[0]!;
    t.set(h.id("audiences", "private"), "audience");
    t.set(doomed, "mind");
    t.set(h.id("audiences", "main"), "kept");
    expect((await h.call("DELETE", path("private"))).status).toBe(204);
    expect([...t.values()]).toEqual(["kept"]);
  });

  it("forgets idempotency records of the deleted Audience", async () => {
    const key = { "x-service-idempotency-key": "k-del" };
    const copy = (await h.call("POST", path("private", "/duplicate"), { headers: key })).body.data.id;
    expect(h.sim.state.idempotency.size).toBe(1);
    expect((await h.call("DELETE", `/api/v1/audiences/${copy}`)).status).toBe(204);
    expect(h.sim.state.idempotency.size).toBe(0);
  });

  it.each([
    "admin",
    "member",
    "teammate",
    "studyViewer",
    "outsider",
  ])("answers 404 to %s and deletes nothing", async (as) => {
    const r = await refused("DELETE", path("main"), { as }, 404);
    expect(r.body.statusMessage).toBe("Audience not found");
  });

  it("answers 404 to an outsider deleting a public Audience", async () => {
    await refused("DELETE", path("public"), { as: "outsider" }, 404);
  });

  it("answers 404 for a missing or malformed ID (the operation documents no 400)", async () => {
    await refused("DELETE", "/api/v1/audiences/00000000-0000-4000-8000-000000000000", {}, 404);
    await refused("DELETE", "/api/v1/audiences/nope", {}, 404);
  });
});

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
    const r = await refused("POST", path("private", "/duplicate"), { body, headers: { [KEY]: "n" } }, 400);
    expect(r.body.statusMessage).toBe(message);
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
    const r = await refused("POST", path(handle, "/duplicate"), { as, body: { name: "" } }, 403);
    expect(r.body.statusMessage).toBe("Access denied");
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
    const r = await refused("POST", "/api/v1/audiences/xyz/duplicate", {}, 400);
    expect(r.body.statusMessage).toBe("Invalid audience ID format");
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

describe("follow and unfollow", () => {
  it("follows a public Audience once, however often it is asked, and unfollows it", async () => {
    const id = h.id("audiences", "public");
    for (let i = 0; i < 2; i++) {
      const r = await h.call("POST", path("public", "/follow"), { as: "outsider" });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ data: { audienceId: id, following: true } });
    }
    expect(user("outsider").following).toEqual([id]);
    const off = await h.call("DELETE", path("public", "/follow"), { as: "outsider" });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ data: { audienceId: id, following: false } });
    expect(user("outsider").following).toEqual([]);
  });

  it.each([
    ["owner", "main"],
    ["outsider", "private"],
    ["studyViewer", "main"],
  ])("answers 404 Public audience not found to %s following non-public %s", async (as, handle) => {
    const r = await refused("POST", path(handle, "/follow"), { as }, 404);
    expect(r.body.statusMessage).toBe("Public audience not found");
  });

  it("answers 404 for an unknown or malformed ID (no 400 is documented)", async () => {
    await refused("POST", "/api/v1/audiences/00000000-0000-4000-8000-000000000000/follow", {}, 404);
    await refused("POST", "/api/v1/audiences/bad/follow", {}, 404);
  });

  it("answers 200 following false for an Audience that was never followed or does not exist", async () => {
    for (const url of [
      path("main", "/follow"),
      "/api/v1/audiences/00000000-0000-4000-8000-000000000000/follow",
    ]) {
      const r = await refused("DELETE", url, {}, 200);
      expect(r.body.data.following).toBe(false);
    }
  });

  it("answers 401 without a key", async () => {
    await refused("POST", path("public", "/follow"), { as: null }, 401);
    await refused("DELETE", path("public", "/follow"), { as: null }, 401);
  });

  it("keeps working under /v1 as well", async () => {
    const r = await h.call("POST", `/v1/audiences/${h.id("audiences", "public")}/follow`, { as: "solo" });
    expect(r.status).toBe(200);
    expect(user("solo").following).toHaveLength(1);
  });
});
