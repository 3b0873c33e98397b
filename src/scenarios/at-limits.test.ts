import { describe, expect, it } from "vitest";
import { buildScenario } from "../../testing/scenarios.ts";
import { AUDIENCE_MEMBER_CAP, memberCap, mindCap } from "../core/world/plans.ts";
import { atLimitsScenario } from "./at-limits.ts";

const b = buildScenario(atLimitsScenario, 1);
const { state, manifest } = b;

function userId(handle: string): string {
  const id = manifest.users[handle]?.id;
  if (id === undefined) throw new Error(`no user ${handle}`);
  return id;
}
function audienceMembers(handle: string): string[] {
  const a = state.audiences.get(manifest.audiences[handle]?.id ?? "");
  if (!a) throw new Error(`no audience ${handle}`);
  return a.memberIds;
}
function ownedMinds(handle: string): number {
  const id = userId(handle);
  return [...state.minds.values()].filter((m) => m.ownerId === id).length;
}

describe("at-limits scenario", () => {
  it("has a premium owner who owns exactly the sparks cap of 100 Minds", () => {
    const owner = state.users.get(userId("owner"));
    expect(owner?.plan).toBe("premium");
    expect(owner?.subscriptionActive).toBe(true);
    if (!owner) return;
    expect(mindCap(owner)).toBe(100);
    expect(ownedMinds("owner")).toBe(mindCap(owner));
    expect(manifest.minds.ownerMind?.owner).toBe("owner");
  });

  it("has `full` at the owner's member cap and `nearCap` one below it", () => {
    const owner = state.users.get(userId("owner"));
    if (!owner) throw new Error("no owner");
    expect(manifest.audiences.full?.owner).toBe("owner");
    expect(audienceMembers("full")).toHaveLength(memberCap(owner));
    expect(audienceMembers("full")).toHaveLength(100);
    expect(audienceMembers("nearCap")).toHaveLength(memberCap(owner) - 1);
    expect(audienceMembers("ownerEmpty")).toEqual([]);
  });

  it("has a free user at the free member cap in one Audience", () => {
    const freebie = state.users.get(userId("freebie"));
    expect(freebie?.plan).toBe("free");
    expect(freebie?.subscriptionActive).toBe(false);
    if (!freebie) return;
    expect(memberCap(freebie)).toBe(AUDIENCE_MEMBER_CAP.free);
    expect(manifest.audiences.freebieFull?.owner).toBe("freebie");
    expect(audienceMembers("freebieFull")).toHaveLength(25);
    const owned = [...state.audiences.values()].filter((a) => a.ownerId === freebie.id);
    expect(owned).toHaveLength(1);
  });

  it("offers a public Mind outside every full Audience, to try adding", () => {
    const m = state.minds.get(manifest.minds.publicMind?.id ?? "");
    expect(m?.isPublic).toBe(true);
    expect(m?.ownerId).toBe(userId("publisher"));
    for (const handle of ["full", "nearCap", "freebieFull"])
      expect(audienceMembers(handle)).not.toContain(m?.id);
  });
});
