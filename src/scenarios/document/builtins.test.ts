/**
 * The built-in scenarios are expressible in the scenario format: each, written as a document
 * (describeWorld), passes the schema and every check of the loader, and builds a world with the same
 * handles and the same properties (plans, teams, keys, owners, sharing, members, collaborators, Formations,
 * Studies, prices, Mind counts and training states).
 */
import { describe, expect, it } from "vitest";
import { buildScenario } from "../../../testing/scenarios.ts";
import type { BuiltScenario } from "../../core/world/scenario.ts";
import { scenarios } from "../index.ts";
import { describeWorld } from "./describe.ts";
import { loadScenario } from "./load.ts";
import { schemaProblems } from "./schema.ts";

/** What the design promises of a world, by handle; generated personas' words left out. */
function promised({ state, manifest }: BuiltScenario) {
  const handleOf = (id: string) => state.users.get(id)?.handle;
  const teamOf = (id: string | null) => (id === null ? null : state.teams.get(id)?.name);
  const mindsBy = new Map<string, number>();
  const trainings = new Map<string, number>();
  for (const m of state.minds.values()) {
    const key = `${handleOf(m.ownerId)} ${m.isPublic}`;
    mindsBy.set(key, (mindsBy.get(key) ?? 0) + 1);
    const t = `${m.training.status} ${m.training.beingRepaired}`;
    trainings.set(t, (trainings.get(t) ?? 0) + 1);
  }
  return {
    manifest: { ...manifest, scenario: undefined, audiences: manifest.audiences, users: manifest.users },
    users: [...state.users.values()].map((u) => [
      u.handle,
      u.plan,
      u.subscriptionActive,
      teamOf(u.teamId),
      u.sso,
      u.email,
    ]),
    audiences: Object.entries(manifest.audiences).map(([h, { id }]) => {
      const a = state.audiences.get(id);
      return [
        h,
        a?.name,
        a?.isPublic,
        a?.isSharedWithTeam,
        a?.isLinkSharingEnabled,
        a?.memberIds.length,
        a?.memberIds.map((m) => handleOf(state.minds.get(m)?.ownerId ?? "")).join(),
        a?.collaborators.map((c) => [handleOf(c.userId), c.role, c.status]),
        a?.grounding !== null,
        a?.validations.length,
      ];
    }),
    formations: Object.entries(manifest.formations).map(([h, { id }]) => {
      const f = state.formations.get(id);
      return [h, f?.name, f?.status, f?.visibility, handleOf(f?.creatorId ?? ""), f?.hypothesis];
    }),
    studies: [...state.studies.values()].map((s) => [
      s.name,
      handleOf(s.ownerId),
      s.audienceIds.length,
      s.memberUserIds.map(handleOf),
    ]),
    minds: Object.fromEntries(mindsBy),
    trainings: Object.fromEntries(trainings),
  };
}

describe.each(scenarios.map((s) => [s.name, s] as const))("built-in scenario %s", (name, scenario) => {
  it("is expressible as a scenario document that builds the world it promises", () => {
    const original = buildScenario(scenario);
    const doc = describeWorld(original, name);
    expect(schemaProblems(doc)).toEqual([]);
    const again = buildScenario(loadScenario(doc));
    const want = promised(original);
    const got = promised(again);
    // Handle Minds and IDs are the scenario's own draws; keys are given, so they are the same.
    expect(Object.keys(got.manifest.users)).toEqual(Object.keys(want.manifest.users));
    expect(Object.values(got.manifest.users).map((u) => u.apiKey)).toEqual(
      Object.values(want.manifest.users).map((u) => u.apiKey),
    );
    expect(Object.keys(got.manifest.audiences)).toEqual(Object.keys(want.manifest.audiences));
    expect(Object.keys(got.manifest.minds)).toEqual(Object.keys(want.manifest.minds));
    expect(Object.keys(got.manifest.formations)).toEqual(Object.keys(want.manifest.formations));
    expect(got.manifest.prices).toEqual(want.manifest.prices);
    expect(got.users).toEqual(want.users);
    expect(got.audiences).toEqual(want.audiences);
    expect(got.formations).toEqual(want.formations);
    expect(got.studies).toEqual(want.studies);
    expect(got.minds).toEqual(want.minds);
    expect(got.trainings).toEqual(want.trainings);
  });
});
