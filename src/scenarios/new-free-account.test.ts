import { describe, expect, it } from "vitest";
import { buildScenario } from "../../testing/scenarios.ts";
import { newFreeAccountScenario } from "./new-free-account.ts";

const { state, manifest } = buildScenario(newFreeAccountScenario, 1);

describe("new-free-account scenario", () => {
  it("has a free user without subscription, team, Audiences or Minds", () => {
    const newbie = state.users.get(manifest.users.newbie?.id ?? "");
    expect(newbie).toMatchObject({ plan: "free", subscriptionActive: false, teamId: null, sso: false });
    if (!newbie) return;
    expect([...state.minds.values()].filter((m) => m.ownerId === newbie.id)).toEqual([]);
    for (const a of state.audiences.values()) {
      expect(a.ownerId).not.toBe(newbie.id);
      expect(a.collaborators.some((c) => c.userId === newbie.id)).toBe(false);
    }
    expect(state.studies.size).toBe(0);
    expect(state.teams.size).toBe(0);
  });

  it("has a publisher with a public Audience of public Minds and a loose public Mind", () => {
    const publisherId = manifest.users.publisher?.id;
    expect(manifest.users.publisher?.plan).toBe("team");
    const pub = state.audiences.get(manifest.audiences.public?.id ?? "");
    expect(pub?.ownerId).toBe(publisherId);
    expect(pub?.isPublic).toBe(true);
    expect(pub?.memberIds.length).toBeGreaterThanOrEqual(3);
    for (const id of pub?.memberIds ?? []) expect(state.minds.get(id)?.isPublic).toBe(true);
    expect(manifest.minds.publicMind).toMatchObject({ owner: "publisher", public: true });
    expect(Object.keys(manifest.audiences)).toEqual(["public"]);
  });

  it("sells the three catalogue prices", () => {
    expect(Object.keys(manifest.prices).sort()).toEqual(["credits", "premiumMonthly", "teamMonthly"]);
  });
});
