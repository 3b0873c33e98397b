import { describe, expect, it } from "vitest";
import { buildScenario } from "../../testing/scenarios.ts";
import { memberCap } from "../core/world/plans.ts";
import { PRICE_CATALOGUE } from "./catalogue.ts";
import { defaultScenario } from "./default.ts";
import { findScenario, scenarios } from "./index.ts";

describe("scenario registry", () => {
  it("lists the default first, then the others, each with a unique name and a description", () => {
    expect(scenarios[0]).toBe(defaultScenario);
    expect(scenarios.map((s) => s.name)).toEqual(["default", "new-free-account", "at-limits", "training"]);
    for (const s of scenarios) expect(s.description.length).toBeGreaterThan(20);
  });

  it("finds scenarios by exact name only", () => {
    for (const s of scenarios) expect(findScenario(s.name)).toBe(s);
    expect(findScenario("Default")).toBeUndefined();
    expect(findScenario("")).toBeUndefined();
    expect(findScenario("__proto__")).toBeUndefined();
    expect(findScenario("constructor")).toBeUndefined();
  });
});

describe.each(scenarios.map((s) => [s.name, s] as const))("scenario %s", (name, scenario) => {
  const b = buildScenario(scenario, 1);
  const { state, manifest } = b;

  it("names itself in the manifest", () => {
    expect(manifest.scenario).toBe(name);
    expect(manifest.seed).toBe(1);
  });

  it("resolves every manifest handle to a record with the same owner and flags", () => {
    for (const [handle, u] of Object.entries(manifest.users)) {
      const rec = state.users.get(u.id);
      expect(rec?.handle, handle).toBe(handle);
      expect(rec?.plan).toBe(u.plan);
      expect(rec?.subscriptionActive).toBe(u.subscriptionActive);
      expect(rec?.teamId).toBe(u.teamId);
      expect(rec?.sso).toBe(u.sso);
    }
    for (const [handle, a] of Object.entries(manifest.audiences)) {
      expect(state.audiences.get(a.id)?.ownerId, handle).toBe(manifest.users[a.owner]?.id);
    }
    for (const [handle, m] of Object.entries(manifest.minds)) {
      const rec = state.minds.get(m.id);
      expect(rec?.ownerId, handle).toBe(manifest.users[m.owner]?.id);
      expect(rec?.isPublic).toBe(m.public);
    }
    for (const [handle, f] of Object.entries(manifest.formations)) {
      expect(state.formations.get(f.id)?.audienceId, handle).toBe(manifest.audiences[f.audience]?.id);
    }
  });

  it("registers every user and Audience it creates", () => {
    const userIds = new Set(Object.values(manifest.users).map((u) => u.id));
    for (const u of state.users.values()) expect(userIds.has(u.id)).toBe(true);
    const audienceIds = new Set(Object.values(manifest.audiences).map((a) => a.id));
    for (const a of state.audiences.values()) expect(audienceIds.has(a.id)).toBe(true);
  });

  it("gives every user exactly one API key", () => {
    for (const u of Object.values(manifest.users)) {
      const keys = b.keys.filter((k) => k.record.userId === u.id);
      expect(keys.map((k) => k.raw)).toEqual([u.apiKey]);
      expect(u.apiKey).toMatch(/^service_/);
    }
  });

  it("keeps every Audience within its owner's member cap, with members the owner may hold", () => {
    for (const a of state.audiences.values()) {
      const owner = state.users.get(a.ownerId);
      expect(owner).toBeDefined();
      if (!owner) continue;
      expect(a.memberIds.length).toBeLessThanOrEqual(memberCap(owner));
      expect(new Set(a.memberIds).size).toBe(a.memberIds.length);
      for (const id of a.memberIds) {
        const m = state.minds.get(id);
        expect(m).toBeDefined();
        expect(m?.ownerId === owner.id || m?.isPublic === true).toBe(true);
      }
    }
  });

  it("sells the price catalogue", () => {
    expect(manifest.prices).toEqual(PRICE_CATALOGUE);
  });

  it("dates everything before the scenario's start", () => {
    const now = Date.parse(manifest.now);
    for (const m of state.minds.values()) expect(m.createdAt).toBeLessThan(now);
    for (const a of state.audiences.values()) {
      expect(a.createdAt).toBeLessThan(now);
      expect(a.updatedAt).toBeLessThanOrEqual(now);
    }
    for (const k of b.keys) expect(k.record.createdAt).toBeLessThan(now);
  });

  it("is deterministic for a seed and differs across seeds", () => {
    const again = buildScenario(scenario, 1);
    expect(JSON.stringify(again.manifest)).toBe(JSON.stringify(manifest));
    expect(JSON.stringify([...again.state.minds.values()])).toBe(JSON.stringify([...state.minds.values()]));
    const other = buildScenario(scenario, 99);
    for (const handle of Object.keys(manifest.users)) {
      expect(other.manifest.users[handle]?.id).not.toBe(manifest.users[handle]?.id);
    }
    for (const handle of Object.keys(manifest.audiences)) {
      expect(other.manifest.audiences[handle]?.id).not.toBe(manifest.audiences[handle]?.id);
    }
  });
});
