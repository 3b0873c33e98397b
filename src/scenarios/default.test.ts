import { beforeAll, describe, expect, it } from "vitest";
import { realMatches } from "../../testing/scenario-problems.ts";
import { buildScenario, SCENARIO_START } from "../../testing/scenarios.ts";
import { memberCap, mindCap } from "../core/world/plans.ts";
import type { BuiltScenario } from "../core/world/scenario.ts";
import type { AudienceRecord, FormationRecord, MindRecord, State, UserRecord } from "../core/world/state.ts";
import { FILTER_ATTRIBUTE_KEYS, isUploadedFileUrl } from "../generators/index.ts";
import { OTHER_BUCKET } from "../resources/formations/formation-classifier.ts";
import { PRICE_CATALOGUE } from "./catalogue.ts";
import { defaultScenario } from "./default.ts";

let b: BuiltScenario;

type Section = "users" | "audiences" | "minds" | "formations";
type RecordOf<S extends Section> = State[S] extends Map<string, infer R> ? R : never;

/** A record of the built world by its manifest handle. */
function recordOf<S extends Section>(section: S, handle: string): RecordOf<S> {
  const id = b.manifest[section][handle]?.id;
  const table = b.state[section] as Map<string, RecordOf<S>>;
  const r = id === undefined ? undefined : table.get(id);
  if (!r) throw new Error(`no ${section} ${handle}`);
  return r;
}
const user = (handle: string): UserRecord => recordOf("users", handle);
const audience = (handle: string): AudienceRecord => recordOf("audiences", handle);
const mind = (handle: string): MindRecord => recordOf("minds", handle);
const formation = (handle: string): FormationRecord => recordOf("formations", handle);
function audiencesContaining(m: MindRecord): AudienceRecord[] {
  return [...b.state.audiences.values()].filter((a) => a.memberIds.includes(m.id));
}
function members(a: AudienceRecord): MindRecord[] {
  return a.memberIds.map((id) => {
    const m = b.state.minds.get(id);
    if (!m) throw new Error(`audience ${a.name} lists unknown Mind ${id}`);
    return m;
  });
}

beforeAll(() => {
  b = buildScenario(defaultScenario, 1);
});

describe("default scenario: manifest", () => {
  it("is named and timed", () => {
    expect(b.manifest.scenario).toBe("default");
    expect(b.manifest.seed).toBe(1);
    expect(b.manifest.now).toBe("2026-11-21T12:00:00.000Z");
  });

  it("registers every handle of the design table", () => {
    expect(Object.keys(b.manifest.users).sort()).toEqual(
      ["admin", "member", "outsider", "owner", "publisher", "solo", "sso", "studyViewer", "teammate"].sort(),
    );
    expect(Object.keys(b.manifest.audiences).sort()).toEqual(
      ["atCap", "empty", "large", "main", "private", "public", "soloAudience"].sort(),
    );
    expect(Object.keys(b.manifest.minds).sort()).toEqual(
      ["foreignMind", "mainMember", "ownLoose", "publicMind"].sort(),
    );
    expect(Object.keys(b.manifest.formations).sort()).toEqual(["mainFailed", "mainReady", "teammatePrivate"]);
    expect(Object.keys(b.manifest.prices).sort()).toEqual(["credits", "premiumMonthly", "teamMonthly"]);
  });

  it("agrees with the state for owners and flags", () => {
    for (const [handle, entry] of Object.entries(b.manifest.audiences)) {
      expect(audience(handle).ownerId).toBe(user(entry.owner).id);
    }
    for (const [handle, entry] of Object.entries(b.manifest.minds)) {
      const m = mind(handle);
      expect(m.ownerId).toBe(user(entry.owner).id);
      expect(m.isPublic).toBe(entry.public);
    }
    for (const [handle, entry] of Object.entries(b.manifest.formations)) {
      expect(formation(handle).audienceId).toBe(audience(entry.audience).id);
    }
  });
});

describe("default scenario: users", () => {
  const table = {
    owner: { plan: "premium", subscriptionActive: true, team: true, sso: false },
    teammate: { plan: "team", subscriptionActive: true, team: true, sso: false },
    admin: { plan: "premium", subscriptionActive: true, team: false, sso: false },
    member: { plan: "premium", subscriptionActive: true, team: false, sso: false },
    outsider: { plan: "free", subscriptionActive: false, team: false, sso: false },
    sso: { plan: "premium", subscriptionActive: true, team: false, sso: true },
    solo: { plan: "premium", subscriptionActive: true, team: false, sso: false },
    publisher: { plan: "team", subscriptionActive: true, team: false, sso: false },
    studyViewer: { plan: "free", subscriptionActive: false, team: false, sso: false },
  } as const;

  it.each(
    Object.entries(table),
  )("%s has the stated plan, subscription, team and SSO link", (handle, want) => {
    const u = user(handle);
    const entry = b.manifest.users[handle];
    expect(u.plan).toBe(want.plan);
    expect(u.subscriptionActive).toBe(want.subscriptionActive);
    expect(u.sso).toBe(want.sso);
    expect(u.teamId !== null).toBe(want.team);
    expect(entry).toEqual({
      id: u.id,
      apiKey: expect.stringMatching(/^service_[A-Za-z0-9]+$/),
      plan: want.plan,
      subscriptionActive: want.subscriptionActive,
      teamId: u.teamId,
      sso: want.sso,
    });
    expect(u.handle).toBe(handle);
    expect(u.name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+/);
  });

  it("gives every user exactly one working key, held raw only in the manifest", () => {
    for (const [handle, entry] of Object.entries(b.manifest.users)) {
      const keys = b.keys.filter((k) => k.record.userId === entry.id);
      expect(keys, handle).toHaveLength(1);
      expect(keys[0]?.raw).toBe(entry.apiKey);
      expect(keys[0]?.record.id).toMatch(/^c[a-z0-9]{24}$/);
    }
    expect(new Set(Object.values(b.manifest.users).map((u) => u.apiKey)).size).toBe(9);
    expect(b.state.apiKeys.size).toBe(0);
  });

  it("puts owner and teammate, and only them, in team T", () => {
    const teamId = user("owner").teamId;
    expect(teamId).not.toBeNull();
    expect(user("teammate").teamId).toBe(teamId);
    const team = b.state.teams.get(teamId ?? "");
    expect(team?.memberIds.slice().sort()).toEqual([user("owner").id, user("teammate").id].sort());
    expect(b.state.teams.size).toBe(1);
  });

  it("makes admin and member accepted direct collaborators on main, and the outsider only a pending invitee", () => {
    const main = audience("main");
    const byUser = new Map(main.collaborators.map((c) => [c.userId, c]));
    expect(byUser.get(user("admin").id)).toMatchObject({
      role: "admin",
      status: "accepted",
      joinedAt: expect.any(Number),
    });
    expect(byUser.get(user("member").id)).toMatchObject({
      role: "member",
      status: "accepted",
      joinedAt: expect.any(Number),
    });
    expect(byUser.get(user("outsider").id)).toMatchObject({ status: "pending", joinedAt: null });
    expect(main.collaborators.filter((c) => c.status === "accepted")).toHaveLength(2);
  });

  it("leaves the outsider with no relation to any private Audience", () => {
    const outsider = user("outsider");
    for (const a of b.state.audiences.values()) {
      if (a.isPublic) continue;
      expect(a.ownerId).not.toBe(outsider.id);
      expect(a.collaborators.some((c) => c.userId === outsider.id && c.status === "accepted")).toBe(false);
    }
    for (const s of b.state.studies.values()) expect(s.memberUserIds).not.toContain(outsider.id);
    expect([...b.state.minds.values()].some((m) => m.ownerId === outsider.id)).toBe(false);
  });

  it("makes studyViewer a member of a Study that contains main, and nothing else", () => {
    const viewer = user("studyViewer");
    const studies = [...b.state.studies.values()].filter((s) => s.memberUserIds.includes(viewer.id));
    expect(studies.some((s) => s.audienceIds.includes(audience("main").id))).toBe(true);
    for (const a of b.state.audiences.values()) {
      expect(a.ownerId).not.toBe(viewer.id);
      expect(a.collaborators.some((c) => c.userId === viewer.id)).toBe(false);
    }
  });

  it("keeps the owner under the premium Minds cap", () => {
    const owner = user("owner");
    const owned = [...b.state.minds.values()].filter((m) => m.ownerId === owner.id).length;
    expect(owned).toBeGreaterThan(0);
    expect(owned).toBeLessThan(mindCap(owner));
    expect(owned).toBeLessThan(100);
  });
});

describe("default scenario: audiences", () => {
  it("main is team-shared, link-shared, grounded, with an uploaded file and a scored validation", () => {
    const main = audience("main");
    expect(main.ownerId).toBe(user("owner").id);
    expect(main.isPublic).toBe(false);
    expect(main.isSharedWithTeam).toBe(true);
    expect(main.isLinkSharingEnabled).toBe(true);
    expect(main.publicShareId).toEqual(expect.stringMatching(/\S/));
    expect(main.memberIds.length).toBeGreaterThanOrEqual(40);
    expect(main.memberIds.length).toBeLessThanOrEqual(60);
    expect(new Set(main.memberIds).size).toBe(main.memberIds.length);
    expect(main.grounding?.charts.length).toBeGreaterThan(0);
    expect(main.coverage?.length).toBeGreaterThan(0);
    expect(main.sources.files.some((f) => isUploadedFileUrl(f.url))).toBe(true);
    expect(main.validations.some((v) => v.status === "scored" && v.score !== null)).toBe(true);
  });

  it("main's members have filter attributes with some values missing", () => {
    const ms = members(audience("main"));
    const withSome = ms.filter((m) => Object.keys(m.attributes).length > 0);
    const missingSome = ms.filter((m) => FILTER_ATTRIBUTE_KEYS.some((k) => m.attributes[k] === undefined));
    expect(withSome.length).toBe(ms.length);
    expect(missingSome.length).toBeGreaterThan(0);
    expect(missingSome.length).toBeLessThan(ms.length);
  });

  it("private is the owner's, unshared, with at least 3 members and no grounding or scored validation", () => {
    const a = audience("private");
    expect(a.ownerId).toBe(user("owner").id);
    expect(a.isPublic).toBe(false);
    expect(a.isSharedWithTeam).toBe(false);
    expect(a.isLinkSharingEnabled).toBe(false);
    expect(a.publicShareId).toBeNull();
    expect(a.collaborators).toEqual([]);
    expect(a.memberIds.length).toBeGreaterThanOrEqual(3);
    expect(a.grounding).toBeNull();
    expect(a.validations.some((v) => v.status === "scored")).toBe(false);
    expect([...b.state.studies.values()].some((s) => s.audienceIds.includes(a.id))).toBe(false);
  });

  it("public is the publisher's, public, with at least 3 public members of the publisher", () => {
    const a = audience("public");
    expect(a.ownerId).toBe(user("publisher").id);
    expect(a.isPublic).toBe(true);
    const ms = members(a);
    expect(ms.length).toBeGreaterThanOrEqual(3);
    for (const m of ms) {
      expect(m.isPublic).toBe(true);
      expect(m.ownerId).toBe(user("publisher").id);
    }
  });

  it("large is the publisher's, public, with more than 5000 members", () => {
    const a = audience("large");
    expect(a.ownerId).toBe(user("publisher").id);
    expect(a.isPublic).toBe(true);
    expect(a.memberIds.length).toBeGreaterThan(5000);
    expect(new Set(a.memberIds).size).toBe(a.memberIds.length);
    expect(a.memberIds.every((id) => b.state.minds.get(id)?.isPublic === true)).toBe(true);
  });

  it("empty is the owner's with no members", () => {
    const a = audience("empty");
    expect(a.ownerId).toBe(user("owner").id);
    expect(a.memberIds).toEqual([]);
  });

  it("atCap is the owner's and exactly at the owner's plan member cap", () => {
    const a = audience("atCap");
    const owner = user("owner");
    expect(a.ownerId).toBe(owner.id);
    expect(memberCap(owner)).toBe(100);
    expect(a.memberIds.length).toBe(memberCap(owner));
    expect(new Set(a.memberIds).size).toBe(memberCap(owner));
    // Members the owner may hold: its own or public ones.
    for (const m of members(a)) expect(m.ownerId === owner.id || m.isPublic).toBe(true);
  });

  it("soloAudience is solo's", () => {
    const a = audience("soloAudience");
    expect(a.ownerId).toBe(user("solo").id);
    expect(a.memberIds.length).toBeGreaterThan(0);
    for (const m of members(a)) expect(m.ownerId).toBe(user("solo").id);
  });

  it("every member of every Audience exists, once, and may be held by the Audience's owner", () => {
    for (const a of b.state.audiences.values()) {
      expect(new Set(a.memberIds).size).toBe(a.memberIds.length);
      for (const m of members(a)) expect(m.ownerId === a.ownerId || m.isPublic).toBe(true);
    }
  });
});

describe("default scenario: minds", () => {
  it("ownLoose is the owner's, private, and in no Audience", () => {
    const m = mind("ownLoose");
    expect(m.ownerId).toBe(user("owner").id);
    expect(m.isPublic).toBe(false);
    expect(audiencesContaining(m)).toEqual([]);
  });

  it("publicMind is the publisher's, public, and in no Audience of the owner", () => {
    const m = mind("publicMind");
    expect(m.ownerId).toBe(user("publisher").id);
    expect(m.isPublic).toBe(true);
    expect(audiencesContaining(m).filter((a) => a.ownerId === user("owner").id)).toEqual([]);
  });

  it("foreignMind is the publisher's and private", () => {
    const m = mind("foreignMind");
    expect(m.ownerId).toBe(user("publisher").id);
    expect(m.isPublic).toBe(false);
  });

  it("mainMember is the owner's and a member of main only", () => {
    const m = mind("mainMember");
    expect(m.ownerId).toBe(user("owner").id);
    expect(audiencesContaining(m).map((a) => a.id)).toEqual([audience("main").id]);
  });

  it("every Mind has completed training and a creation time in the past", () => {
    for (const m of b.state.minds.values()) {
      expect(m.training.status).toBe("completed");
      expect(m.createdAt).toBeLessThan(SCENARIO_START);
    }
  });
});

describe("default scenario: formations", () => {
  it("mainReady is shared, ready, on main, with at least two populated buckets of real matches", () => {
    const f = formation("mainReady");
    expect(f.audienceId).toBe(audience("main").id);
    expect(f.visibility).toBe("shared");
    expect(f.status).toBe("ready");
    expect(f.creatorId).toBe(user("owner").id);
    expect(f.progress).toBeNull();
    const assigned = f.subgroups.flatMap((s) => s.members.map((m) => m.mindId));
    expect(assigned.slice().sort()).toEqual(audience("main").memberIds.slice().sort());
    const matched = realMatches(f, b.state);
    expect(matched.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    // Most members are placed because their own words match, not by the classifier's fallback guess.
    expect(matched.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(assigned.length * 0.6);
  });

  it("mainFailed is shared and failed, with a safe reason", () => {
    const f = formation("mainFailed");
    expect(f.audienceId).toBe(audience("main").id);
    expect(f.visibility).toBe("shared");
    expect(f.status).toBe("failed");
    expect(f.subgroups).toEqual([]);
    expect(f.failureReason).toEqual(expect.any(String));
  });

  it("teammatePrivate is private, created by the teammate, and ready", () => {
    const f = formation("teammatePrivate");
    expect(f.audienceId).toBe(audience("main").id);
    expect(f.visibility).toBe("private");
    expect(f.creatorId).toBe(user("teammate").id);
    expect(f.status).toBe("ready");
    expect(realMatches(f, b.state).filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    2, 3, 7, 42, 1234, 2026,
  ])("both ready Formations come out ready from real matches with seed %i", (seed) => {
    const other = buildScenario(defaultScenario, seed);
    for (const handle of ["mainReady", "teammatePrivate"]) {
      const f = other.state.formations.get(other.manifest.formations[handle]?.id ?? "");
      expect(f?.status, handle).toBe("ready");
      if (!f) continue;
      const primary = f.subgroups.filter((s) => s.id !== OTHER_BUCKET && s.members.length > 0);
      expect(primary.length).toBeGreaterThanOrEqual(2);
      const matched = realMatches(f, other.state);
      expect(matched.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
      expect(matched.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(
        f.subgroups.flatMap((s) => s.members).length * 0.6,
      );
    }
  });
});

describe("default scenario: prices", () => {
  it("sells the three catalogue prices with stable IDs", () => {
    // The IDs and amounts are pinned here: a frontend or partner names these prices without a manifest.
    const pinned = Object.entries(b.manifest.prices).map(([handle, p]) => [
      handle,
      p.id,
      p.kind,
      p.plan,
      p.unitAmount,
    ]);
    expect(pinned).toEqual([
      ["premiumMonthly", "price_premiumMonthly", "subscription", "premium", 2900],
      ["teamMonthly", "price_teamMonthly", "subscription", "team", 9900],
      ["credits", "price_credits", "credits", null, 4900],
    ]);
    expect(b.manifest.prices).toEqual(PRICE_CATALOGUE);
    const stored = b.state.extra.get("prices");
    expect([...(stored?.keys() ?? [])].sort()).toEqual([
      "price_credits",
      "price_premiumMonthly",
      "price_teamMonthly",
    ]);
  });
});

describe("default scenario: determinism", () => {
  it("gives the same manifest and records for the same seed", () => {
    const again = buildScenario(defaultScenario, 1);
    expect(JSON.stringify(again.manifest)).toBe(JSON.stringify(b.manifest));
    expect(JSON.stringify([...again.state.audiences.values()])).toBe(
      JSON.stringify([...b.state.audiences.values()]),
    );
    expect(JSON.stringify([...again.state.formations.values()])).toBe(
      JSON.stringify([...b.state.formations.values()]),
    );
    expect(again.state.minds.size).toBe(b.state.minds.size);
  });

  it("gives different IDs and keys for a different seed", () => {
    const other = buildScenario(defaultScenario, 2);
    expect(other.manifest.seed).toBe(2);
    for (const handle of Object.keys(b.manifest.users)) {
      expect(other.manifest.users[handle]?.id).not.toBe(b.manifest.users[handle]?.id);
      expect(other.manifest.users[handle]?.apiKey).not.toBe(b.manifest.users[handle]?.apiKey);
    }
    for (const handle of Object.keys(b.manifest.audiences)) {
      expect(other.manifest.audiences[handle]?.id).not.toBe(b.manifest.audiences[handle]?.id);
    }
    for (const handle of Object.keys(b.manifest.minds)) {
      expect(other.manifest.minds[handle]?.id).not.toBe(b.manifest.minds[handle]?.id);
    }
    // Prices keep their stable IDs whatever the seed.
    expect(other.manifest.prices).toEqual(b.manifest.prices);
  });

  it("makes every ID unique", () => {
    const ids = [
      ...b.state.users.keys(),
      ...b.state.audiences.keys(),
      ...b.state.minds.keys(),
      ...b.state.formations.keys(),
      ...b.state.studies.keys(),
      ...b.state.teams.keys(),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});
