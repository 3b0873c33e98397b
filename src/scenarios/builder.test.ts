import { describe, expect, it } from "vitest";
import { buildScenario, SCENARIO_START } from "../../testing/scenarios.ts";
import type { DeferredMap } from "../core/world/deferred-map.ts";
import { emptyState } from "../core/world/state.ts";
import { templateOf } from "../core/world/template.ts";
import { createRng } from "../generators/prng.ts";
import { createSimulator } from "../simulator.ts";
import { type MindSeriesOptions, ScenarioBuilder } from "./builder.ts";
import { defaultScenario, LARGE_MEMBERS } from "./default.ts";

function builder(): ScenarioBuilder {
  return new ScenarioBuilder(emptyState(), createRng(7).fork("scenario"), SCENARIO_START, "test", 7);
}

describe("ScenarioBuilder.lazyMinds", () => {
  const opts: MindSeriesOptions = {
    label: "panel",
    topic: "Independent pharmacists",
    missingRate: 0.3,
    id: "6f1c7f5e-2b1d-4c9a-9f0e-3d2b1a0c9e8f",
  };

  it("makes, when each is first read, the Minds `minds` makes at once, and leaves the builder's streams as they were", () => {
    const eager = builder();
    const lazy = builder();
    const made = eager.minds(
      eager.user("o", { name: "O", plan: "premium", subscriptionActive: true }),
      40,
      opts,
    );
    const handles = lazy.lazyMinds(
      lazy.user("o", { name: "O", plan: "premium", subscriptionActive: true }),
      40,
      opts,
    );
    expect(handles).toEqual(made.map((m) => m.id));
    const table = lazy.state.minds as DeferredMap<string, object>;
    expect(table.deferred).toBe(40);
    expect(lazy.state.minds.get(handles[7] as string)).toEqual(made[7]);
    expect(table.deferred).toBe(39);
    expect([...lazy.state.minds.values()]).toEqual(made);
    expect(lazy.rng.uuid()).toBe(eager.rng.uuid());
  });

  it("freezes each Mind it makes, as a template's Minds are", () => {
    const b = builder();
    const [id] = b.lazyMinds(b.user("o", { name: "O", plan: "free", subscriptionActive: false }), 1, opts);
    const m = b.state.minds.get(id as string);
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.isFrozen(m?.training)).toBe(true);
  });

  it("leaves the default scenario's panels (large, atCap) unmade by its build", () => {
    const built = buildScenario(defaultScenario, 1);
    const atCap = built.state.audiences.get(built.manifest.audiences.atCap?.id as string);
    expect((built.state.minds as DeferredMap<string, object>).deferred).toBe(
      LARGE_MEMBERS + (atCap?.memberIds.length ?? 0),
    );
  });
});

describe("the default world's panels", () => {
  it("are made as requests reach them: none to build the world and answer auth/me", async () => {
    // A start time of its own: templates are shared by every world of a scenario, seed and start time.
    const startTime = SCENARIO_START + 1234;
    const sim = createSimulator({ clock: "manual", startTime, seed: 1 });
    await sim.ready;
    const template = templateOf(defaultScenario, 1, startTime).state;
    const panel = template.minds as DeferredMap<string, object>;
    const { users, audiences } = sim.manifest();
    const atCap = template.audiences.get(audiences.atCap?.id as string)?.memberIds.length ?? 0;
    const get = async (path: string, user: string) => {
      const res = await sim.fetch(
        new Request(`http://sim.test/api/v1${path}`, {
          headers: { authorization: `Bearer ${users[user]?.apiKey}` },
        }),
      );
      expect(res.status).toBe(200);
      return res.json();
    };
    const unmade = LARGE_MEMBERS + atCap;
    expect(panel.deferred).toBe(unmade);
    await get("/auth/me", "owner");
    expect(panel.deferred).toBe(unmade);
    const large = (await get(`/audiences/${audiences.large?.id}`, "publisher")) as {
      data: { mindCount: number; minds: { id: string }[] };
    };
    expect(large.data.mindCount).toBe(LARGE_MEMBERS);
    expect(large.data.minds.length).toBe(LARGE_MEMBERS);
    await get(`/audiences/${audiences.large?.id}/filter-attributes`, "publisher");
    expect(panel.deferred).toBe(unmade - LARGE_MEMBERS);
  });
});
