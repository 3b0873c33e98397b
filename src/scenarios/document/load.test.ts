import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import { BUYING_ROLES as HYPOTHESIS, problemsOf } from "../../../testing/scenario-problems.ts";
import { buildScenario } from "../../../testing/scenarios.ts";
import type { DeferredMap } from "../../core/world/deferred-map.ts";
import { memberCap } from "../../core/world/plans.ts";
import { PRICE_CATALOGUE } from "../catalogue.ts";
import { defineScenario, loadScenario, type ScenarioDocument } from "./load.ts";

const small = defineScenario({
  name: "small",
  seed: 7,
  teams: { t: { name: "Team T" } },
  users: {
    dev: {
      name: "Dana Dev",
      plan: "premium",
      team: "t",
      apiKeys: [{ name: "CI", key: "service_fixedKeyForCi1" }],
    },
    mate: { plan: "team", team: "t" },
    free: {},
  },
  minds: {
    star: {
      owner: "dev",
      name: "Ada Star",
      attributes: { country: "DE", industry: null },
      training: "running",
    },
  },
  audiences: {
    a: {
      owner: "dev",
      topic: "Hospital procurement leads",
      members: ["star", { generate: 9 }],
      sharedWithTeam: true,
      collaborators: [{ user: "free", role: "member" }],
      grounding: { uploadedFile: true },
    },
  },
  formations: { f: { audience: "a", name: "Roles", hypothesis: HYPOTHESIS, status: "failed" } },
});

describe("scenario documents", () => {
  it("build the world they describe, every handle in the manifest", async () => {
    const h = await harness({ scenario: small });
    const m = h.sim.manifest();
    expect(m.scenario).toBe("small");
    expect(m.seed).toBe(7);
    expect(Object.keys(m.users)).toEqual(["dev", "mate", "free"]);
    expect(m.users.dev).toMatchObject({
      plan: "premium",
      subscriptionActive: true,
      apiKey: "service_fixedKeyForCi1",
    });
    expect(m.users.free).toMatchObject({ plan: "free", subscriptionActive: false, teamId: null });
    expect(m.users.mate?.teamId).toBe(m.users.dev?.teamId);
    expect(m.prices).toEqual(PRICE_CATALOGUE);
    const star = h.sim.state.minds.get(h.id("minds", "star"));
    expect(star).toMatchObject({ name: "Ada Star", attributes: expect.objectContaining({ country: "DE" }) });
    expect(star?.attributes).not.toHaveProperty("industry");
    const a = h.audience("a");
    expect(a.memberIds).toHaveLength(10);
    expect(a.memberIds[0]).toBe(star?.id);
    expect(a.grounding?.charts.length).toBeGreaterThan(0);

    // Read back through the API, as its users would.
    expect((await h.call("GET", "/api/v1/auth/me", { as: "dev" })).body).toEqual({ id: m.users.dev?.id });
    const detail = (await h.call("GET", `/api/v1/audiences/${a.id}`, { as: "mate" })).body.data;
    expect(detail.currentMemberRole).toBe("team_member");
    expect(detail.mindCount).toBe(10);
    const collaborators = (await h.call("GET", `/api/v1/audiences/${a.id}/collaborators`, { as: "dev" })).body
      .data;
    expect(collaborators.map((c: { userId: string }) => c.userId)).toEqual([m.users.free?.id]);
    const f = (
      await h.call("GET", `/api/v1/audiences/${a.id}/formations/${h.id("formations", "f")}`, { as: "dev" })
    ).body.data;
    expect(f.status).toBe("failed");
    const progress = (await h.call("GET", `/api/v1/audiences/${a.id}/progress`, { as: "dev" })).body.data;
    const starProgress = progress.members.find((x: { mindId: string }) => x.mindId === star?.id);
    expect(starProgress.update.trainingStatus).toBe("running");
  });

  it("refuse a schema problem with its JSON path and what was expected", () => {
    expect(
      problemsOf({
        users: { "9bad": {}, ok: { plan: "gold", colour: "red" } },
        audiences: { a: { members: [{ generate: 0 }, 5] } },
      }),
    ).toEqual([
      { path: "/users/9bad", message: expect.stringMatching(/not a valid handle/) },
      { path: "/users/ok/colour", message: "is not a field of the scenario format here" },
      { path: "/users/ok/plan", message: 'must be one of "free", "premium", "team"' },
      { path: "/audiences/a/members/0/generate", message: "must be >= 1" },
      // Neither a handle nor an object: the last branch of the choice says what it wanted.
      { path: "/audiences/a/members/1", message: "must be object" },
    ]);
  });

  it("refuse what the description does not allow, each problem at its path", () => {
    const problems = problemsOf({
      users: {
        lone: { plan: "premium", team: "nowhere" },
        free: { plan: "free", subscriptionActive: true },
        other: { plan: "premium" },
      },
      minds: { theirs: { owner: "other" } },
      audiences: {
        tooBig: {
          owner: "free",
          members: [{ generate: memberCap({ plan: "free", limits: {} } as never) + 1 }],
        },
        empty: { owner: "lone", sharedWithTeam: true },
        borrowed: { owner: "lone", members: ["theirs", "ghost"] },
        orphan: { name: "No owner" },
        copied: { owner: "lone", members: [{ membersOf: "nothing" }] },
      },
      formations: {
        onEmpty: { audience: "empty", name: "x", hypothesis: HYPOTHESIS },
        nowhere: { audience: "missing", name: "x", hypothesis: HYPOTHESIS },
      },
      setup: [{ as: "nobody", method: "GET", path: "/api/v1/audiences/{audiences.none}" }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "/users/lone/team", message: expect.stringMatching(/names no team/) },
        { path: "/users/free/subscriptionActive", message: expect.stringMatching(/free plan/) },
        {
          path: "/audiences/tooBig/members",
          message: expect.stringMatching(/over the owner's free plan cap of 25/),
        },
        { path: "/audiences/empty/sharedWithTeam", message: expect.stringMatching(/TEAM_REQUIRED/) },
        { path: "/audiences/borrowed/members/1", message: expect.stringMatching(/names no Mind/) },
        {
          path: "/audiences/borrowed/members/0",
          message: expect.stringMatching(/private Mind of another user/),
        },
        { path: "/audiences/orphan/owner", message: "is required for a new Audience" },
        { path: "/audiences/copied/members/0/membersOf", message: "names no Audience made before this one" },
        { path: "/formations/onEmpty/audience", message: expect.stringMatching(/has 0 members/) },
        { path: "/formations/nowhere/audience", message: expect.stringMatching(/names no Audience/) },
      ]),
    );
    // Setup steps are checked once the world builds; here it does not, so its problems come first.
    expect(problems.every((p) => typeof p.path === "string" && p.message.length > 0)).toBe(true);
    expect(
      problemsOf({
        users: { u: {} },
        setup: [{ as: "nobody", method: "GET", path: "/api/v1/x/{audiences.none}" }],
      }),
    ).toEqual([
      { path: "/setup/0/as", message: "names no user of this scenario" },
      { path: "/setup/0/path", message: "{audiences.none} names no handle of this scenario" },
    ]);
  });

  it("report every problem in one answer: schema and meaning together, none caused by another", () => {
    // An unknown field, a wrong type and a dangling handle, each in its own record: all three at once.
    expect(
      problemsOf({
        users: { dev: { plan: "premium", colour: "red" }, mate: { plan: 7 } },
        audiences: { a: { owner: "ghost" } },
      }),
    ).toEqual([
      { path: "/users/dev/colour", message: "is not a field of the scenario format here" },
      { path: "/users/mate/plan", message: 'must be one of "free", "premium", "team"' },
      { path: "/audiences/a/owner", message: expect.stringMatching(/names no user/) },
    ]);
    // A dangling owner alone: the Formation on that Audience is not said to name nothing (it is in the
    // file), nor is the setup step that reads it.
    expect(
      problemsOf({
        users: { dev: { plan: "premium" } },
        audiences: { a: { owner: "ghost", members: [{ generate: 6 }] } },
        formations: { f: { audience: "a", name: "x", hypothesis: HYPOTHESIS } },
        setup: [
          { as: "dev", method: "GET", path: "/api/v1/audiences/{audiences.a}/formations/{formations.f}" },
        ],
      }),
    ).toEqual([{ path: "/audiences/a/owner", message: expect.stringMatching(/names no user/) }]);
    // A user with a schema problem: what refers to that user is not reported again, what is wrong
    // elsewhere is.
    expect(
      problemsOf({
        users: { dev: { plan: "gold" }, ok: {} },
        minds: { m: { owner: "dev" } },
        audiences: { a: { owner: "dev", members: ["m"] }, b: { owner: "ok", members: ["nobody"] } },
        setup: [{ as: "dev", method: "GET", path: "/api/v1/auth/me" }],
      }),
    ).toEqual([
      { path: "/users/dev/plan", message: 'must be one of "free", "premium", "team"' },
      { path: "/audiences/b/members/0", message: expect.stringMatching(/names no Mind/) },
    ]);
    // A bad setup step leaves the setup out, not the rest; a bad top-level field likewise.
    expect(
      problemsOf({
        seed: -1,
        audiences: { a: { owner: "ghost" } },
        setup: [{ as: "x", method: "FETCH", path: "/api/v1/auth/me" }],
      }).map((p) => p.path),
    ).toEqual(["/seed", "/setup/0/method", "/audiences/a/owner"]);
  });

  it("refuse a Formation that cannot be ready, and one whose creator cannot edit the Audience", () => {
    const problems = problemsOf({
      users: { o: { plan: "premium" }, stranger: {} },
      audiences: {
        a: { owner: "o", members: [{ generate: 6 }] },
        one: { owner: "o", members: [{ generate: 1 }] },
      },
      formations: {
        // One member fills one subgroup at most: never the two a ready Formation has.
        forced: { audience: "one", name: "x", status: "ready", hypothesis: HYPOTHESIS },
        foreign: { audience: "a", creator: "stranger", name: "x", hypothesis: HYPOTHESIS },
      },
    });
    expect(problems).toEqual([
      { path: "/formations/forced/status", message: expect.stringMatching(/cannot be ready/) },
      { path: "/formations/foreign/creator", message: expect.stringMatching(/cannot edit this Audience/) },
    ]);
  });

  it("extend a built-in scenario: its handles stay, named ones change, new ones are added", async () => {
    const doc: ScenarioDocument = {
      extends: "new-free-account",
      users: { newbie: { plan: "premium" }, extra: { plan: "team" } },
      audiences: {
        public: { name: "Renamed pharmacists", linkSharing: true },
        mine: { owner: "newbie", members: ["publicMind"] },
      },
      prices: { euros: { kind: "credits", currency: "eur", unitAmount: 900, name: "Credits (EUR)" } },
    };
    const h = await harness({ scenario: doc });
    const m = h.sim.manifest();
    expect(m.scenario).toBe("custom");
    expect(Object.keys(m.users)).toEqual(["newbie", "publisher", "extra"]);
    expect(m.users.newbie).toMatchObject({ plan: "premium", subscriptionActive: true });
    expect(h.audience("public").name).toBe("Renamed pharmacists");
    expect(h.audience("public")).toMatchObject({
      isLinkSharingEnabled: true,
      publicShareId: expect.stringMatching(/^shr_/),
    });
    // The prices given are the whole catalogue: the extended scenario's are gone.
    expect(Object.keys(m.prices)).toEqual(["euros"]);
    expect(h.audience("mine").memberIds).toEqual([h.id("minds", "publicMind")]);
    // The plan change shows in the API: a premium account may list its keys now.
    expect((await h.call("GET", "/api/v1/api-keys", { as: "newbie" })).status).toBe(200);
    expect(problemsOf({ extends: "nope" })).toEqual([
      { path: "/extends", message: expect.stringMatching(/names no built-in scenario \(known: default/) },
    ]);
  });

  it("generate Minds by count outside any Audience, and by a seed of their own", async () => {
    const doc = (seed: number): ScenarioDocument => ({
      seed,
      users: { u: { plan: "premium", looseMinds: [{ generate: 4, public: true, seed: 42 }] } },
      audiences: { a: { owner: "u", members: [{ generate: 2, seed: 42 }] } },
    });
    const one = await harness({ scenario: doc(1) });
    const two = await harness({ scenario: doc(2) });
    const minds = (h: typeof one) => [...h.sim.state.minds.values()];
    expect(minds(one)).toHaveLength(6);
    expect(one.ownedBy("u")).toBe(6);
    expect(minds(one).filter((m) => m.isPublic)).toHaveLength(4);
    // The same people at another world seed, with other IDs.
    expect(minds(two).map((m) => m.name)).toEqual(minds(one).map((m) => m.name));
    expect(minds(two).map((m) => m.id)).not.toEqual(minds(one).map((m) => m.id));
    expect(problemsOf({ users: { u: { plan: "premium", looseMinds: [{ generate: 101 }] } } })).toEqual([
      {
        path: "/users/u",
        message: expect.stringMatching(/owns 101 Minds, over the premium plan's cap of 100/),
      },
    ]);
  });

  it("generate Minds made when first read, which the plan checks know without making them", () => {
    const doc = defineScenario({
      users: { a: { plan: "premium" }, b: { plan: "premium" } },
      audiences: {
        hers: { owner: "a", members: [{ generate: 30 }] },
        trained: { owner: "a", members: [{ generate: 2, training: "running" }] },
      },
    });
    const built = buildScenario(loadScenario(doc), 1);
    // The 30 wait to be made; those whose training the document states are made at once.
    expect((built.state.minds as DeferredMap<string, object>).deferred).toBe(30);
    // Another user's private Minds, reached through the list that holds them: found without making them.
    expect(
      problemsOf({
        ...doc,
        audiences: { ...doc.audiences, his: { owner: "b", members: [{ membersOf: "hers", count: 2 }] } },
      }),
    ).toEqual([
      { path: "/audiences/his/members/0", message: expect.stringMatching(/private Mind of another user/) },
    ]);
    expect(
      problemsOf({
        users: { u: { plan: "premium" } },
        audiences: { x: { owner: "u", members: [{ generate: 101 }] } },
      }),
    ).toEqual(
      expect.arrayContaining([
        {
          path: "/users/u",
          message: expect.stringMatching(/owns 101 Minds, over the premium plan's cap of 100/),
        },
      ]),
    );
  });

  it("generate members who fit the Audience's topic, and say in the manifest whom they were drawn from", async () => {
    const doc = defineScenario({
      users: { u: { plan: "premium" } },
      audiences: {
        nurses: { owner: "u", topic: "Night-shift nurses in German hospitals", members: [{ generate: 12 }] },
        farmers: { owner: "u", topic: "Dairy farmers in rural Ireland", members: [{ generate: 12 }] },
        blue: { owner: "u", topic: "People who like the colour blue", members: [{ generate: 3 }] },
      },
    });
    const h = await harness({ scenario: doc });
    const headlines = (a: string) =>
      new Set(h.audience(a).memberIds.map((id) => h.sim.state.minds.get(id)?.headline as string));
    const nurses = headlines("nurses");
    expect([...nurses].filter((x) => headlines("farmers").has(x))).toEqual([]);
    expect(
      [...nurses].every((x) =>
        /Nurse|Midwife|Physician|Practitioner|Anaesthetist|Ward|Nursing|Clinical|Physio|Radio|Occupational/.test(
          x,
        ),
      ),
    ).toBe(true);
    const m = h.sim.manifest().audiences;
    expect(m.nurses?.people).toEqual([
      { topic: "Night-shift nurses in German hospitals", domain: "health care", country: "DE" },
    ]);
    expect(m.farmers?.people).toEqual([
      { topic: "Dairy farmers in rural Ireland", domain: "agriculture", country: "IE" },
    ]);
    expect(m.blue?.people).toEqual([
      {
        topic: "People who like the colour blue",
        domain: null,
        country: null,
        fallback: expect.stringMatching(/general business mix/),
      },
    ]);
    // Same seed, same people.
    const again = await harness({ scenario: doc });
    expect(again.audience("nurses").memberIds.map((id) => again.sim.state.minds.get(id)?.name)).toEqual(
      h.audience("nurses").memberIds.map((id) => h.sim.state.minds.get(id)?.name),
    );
  });

  it("is loaded once per content: equal documents share one scenario, and so one template", () => {
    expect(loadScenario(JSON.parse(JSON.stringify(small)))).toBe(loadScenario(small));
  });

  it("keeps a world of its own from later changes to the caller's object", async () => {
    const doc = { users: { u: { name: "Before" } } };
    const scenario = loadScenario(doc);
    doc.users.u.name = "After";
    const h = await harness({ scenario });
    expect(h.user("u").name).toBe("Before");
  });
});
