import { describe, expect, it } from "vitest";
import {
  audience,
  freshWorldEachTest,
  h,
  MAIN_MEMBERS,
  mind,
  path,
  refused,
  SHARING,
  user,
} from "../../../testing/audiences.ts";
import { expectError, live, NOT_MAIN_OWNERS } from "../../../testing/harness.ts";
import { table } from "../../core/world/state.ts";
import { baselineDistributions, isUploadedFileUrl } from "../../generators/index.ts";
import { COVER_IMAGE_DELAY_MS } from "./audiences.ts";

freshWorldEachTest();

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
    await refused("GET", path(handle), { as }, 404, "Audience not found");
  });

  it("gives a pending invitee nothing, and a team member nothing once team sharing is off", async () => {
    expect((await h.call("GET", path("main"), { as: "outsider" })).status).toBe(404);
    audience("main").isSharedWithTeam = false;
    expect((await h.call("GET", path("main"), { as: "teammate" })).status).toBe(404);
  });

  it("answers 404 for an unknown Audience, 400 for malformed IDs, 401 without a key", async () => {
    const missing = await h.call("GET", "/api/v1/audiences/00000000-0000-4000-8000-000000000000");
    expectError(missing, 404, "Audience not found");
    const bad = await h.call("GET", "/api/v1/audiences/not-a-uuid");
    expectError(bad, 400, "Invalid audience ID format");
    const empty = await h.call("GET", "/api/v1/audiences/");
    expectError(empty, 400, "Audience ID is required");
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

  it("shows the baselines of the members it has now, across adds, removals and swaps", async () => {
    const expected = () => baselineDistributions(audience("main").memberIds.map((id) => mind(id)!));
    const baselines = async () => (await h.call("GET", path("main"))).body.data.baselineDistributions;
    const members = `${path("main")}/members`;
    const loose = h.id("minds", "ownLoose");
    const first = audience("main").memberIds[0];
    expect(await baselines()).toEqual(expected());
    expect((await h.call("POST", members, { body: { mindId: loose } })).status).toBe(200);
    const withLoose = expected();
    expect(await baselines()).toEqual(withLoose);
    expect((await h.call("DELETE", `${members}/${first}`)).status).toBe(204);
    // As many members as at the start, not the same ones.
    expect(audience("main").memberIds.length).toBe(MAIN_MEMBERS);
    expect(await baselines()).toEqual(expected());
    expect(expected()).not.toEqual(withLoose);
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
    live(h.sim.state.minds, a.memberIds[0]!).profileImageUrl = null;
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
    await refused("PUT", path("main"), { body }, 400, "name is required");
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
      await refused("PUT", path(handle), { as, body }, 404, "Audience not found");
    }
  });

  it("answers 400 for a malformed ID", async () => {
    const r = await h.call("PUT", "/api/v1/audiences/123", { body: { name: "x" } });
    expectError(r, 400, "Invalid audience ID format");
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

  it.each(NOT_MAIN_OWNERS)("answers 404 to %s and deletes nothing", async (as) => {
    await refused("DELETE", path("main"), { as }, 404, "Audience not found");
  });

  it("answers 404 to an outsider deleting a public Audience", async () => {
    await refused("DELETE", path("public"), { as: "outsider" }, 404);
  });

  it("answers 404 for a missing or malformed ID (the operation documents no 400)", async () => {
    await refused("DELETE", "/api/v1/audiences/00000000-0000-4000-8000-000000000000", {}, 404);
    await refused("DELETE", "/api/v1/audiences/nope", {}, 404);
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
    await refused("POST", path(handle, "/follow"), { as }, 404, "Public audience not found");
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
