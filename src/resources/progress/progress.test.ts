import { beforeEach, describe, expect, it } from "vitest";
import { expectError, type Harness, harness } from "../../../testing/harness.ts";
import { TRAINING_COUNTS } from "../../scenarios/training.ts";
import { RESEARCH_MS, RESEARCH_START_MS, RESEARCH_STEP_MS } from "../recalibration/records.ts";
import { type MemberUpdate, type Readiness, readinessOf } from "./progress.ts";
import { QUEUE_MS, RUN_MS } from "./training.ts";

const done: MemberUpdate = { readyToChat: true, learningInBackground: false, trainingStatus: "completed" };
const learningDone: MemberUpdate = { ...done, learningInBackground: true };
const queued: MemberUpdate = { readyToChat: true, learningInBackground: true, trainingStatus: "queued" };
const running: MemberUpdate = { ...queued, trainingStatus: "running" };
/** As the rows report it: a member that failed for good no longer answers. */
const failed: MemberUpdate = { readyToChat: false, learningInBackground: false, trainingStatus: "failed" };
const noPrompt: MemberUpdate = {
  readyToChat: false,
  learningInBackground: false,
  trainingStatus: "completed",
};

const r = (over: Partial<Readiness>): Readiness => ({
  total: 0,
  ready: 0,
  training: 0,
  failed: 0,
  isReady: false,
  startsNow: false,
  leftOut: 0,
  learning: 0,
  fullyTrained: false,
  ...over,
});

describe("readinessOf", () => {
  it.each<[string, MemberUpdate[], Readiness]>([
    ["no members", [], r({})],
    [
      "every member trained",
      [done, done, done],
      r({ total: 3, ready: 3, isReady: true, startsNow: true, fullyTrained: true }),
    ],
    [
      "a ready member still learning",
      [done, learningDone],
      r({ total: 2, ready: 2, isReady: true, startsNow: true, learning: 1 }),
    ],
    // Every member can chat (the description's isReady), though one still trains and learns.
    [
      "one queued (or being repaired) member that can chat",
      [done, queued],
      r({ total: 2, ready: 2, training: 1, leftOut: 1, isReady: true, learning: 1 }),
    ],
    [
      "running members, added by a recalibration, that can chat",
      [running, running, done],
      r({ total: 3, ready: 3, training: 2, leftOut: 2, isReady: true, learning: 2 }),
    ],
    [
      "a queued member that cannot chat yet",
      [done, { ...queued, readyToChat: false }],
      r({ total: 2, ready: 1, training: 1, leftOut: 1, learning: 0 }),
    ],
    ["one of three failed for good", [done, done, failed], r({ total: 3, ready: 2, startsNow: true })],
    ["two of three failed for good", [done, failed, failed], r({ total: 3, ready: 1 })],
    [
      "exactly half still answer",
      [done, learningDone, failed, failed],
      r({ total: 4, ready: 2, startsNow: true, learning: 1 }),
    ],
    ["every member failed for good", [failed, failed], r({ total: 2 })],
    [
      "a completed member without a profile yet",
      [done, noPrompt],
      r({ total: 2, ready: 1, startsNow: true }),
    ],
    [
      "a single trained member",
      [done],
      r({ total: 1, ready: 1, isReady: true, startsNow: true, fullyTrained: true }),
    ],
  ])("%s", (_name, updates, expected) => {
    expect(readinessOf(updates)).toEqual(expected);
  });

  it("matches the contract's example", () => {
    expect(readinessOf([done, { ...queued, readyToChat: false, learningInBackground: false }])).toEqual(
      r({ total: 2, ready: 1, training: 1, leftOut: 1 }),
    );
  });
});

describe("GET /audiences/{id}/progress on the training scenario", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness({ scenario: "training" });
  });
  const progress = async (handle = "training") =>
    h.call("GET", `/api/v1/audiences/${h.id("audiences", handle)}/progress`);

  it("reports every member's training and the readiness summary, then moves on the clock", async () => {
    const first = await progress();
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toContain("no-store");
    const data = first.body.data;
    const total = Object.values(TRAINING_COUNTS).reduce((a, b) => a + b, 0);
    expect(data.audienceId).toBe(h.id("audiences", "training"));
    expect(data.members).toHaveLength(total);
    const update = (handle: string) =>
      data.members.find((m: { mindId: string }) => m.mindId === h.id("minds", handle)).update;
    expect(update("repairingMind")).toMatchObject({ beingRepaired: true, trainingStatus: "queued" });
    // A member that failed for good no longer answers.
    expect(update("failedMind")).toMatchObject({ trainingStatus: "failed", readyToChat: false });
    expect(update("failedMind")).not.toHaveProperty("beingRepaired");
    expect(update("completedMind")).toEqual({
      readyToChat: true,
      learningInBackground: false,
      fullyTrained: true,
      trainingStatus: "completed",
    });
    const inTraining = TRAINING_COUNTS.queued + TRAINING_COUNTS.running + TRAINING_COUNTS.repairing;
    // Every member but the one that failed for good can chat; those in training still learn.
    expect(data.readiness).toEqual({
      total,
      ready: total - TRAINING_COUNTS.failed,
      training: inTraining,
      failed: 0,
      isReady: false,
      startsNow: false,
      leftOut: inTraining,
      learning: inTraining,
      fullyTrained: false,
    });
    expect(data).not.toHaveProperty("research");
    expect(data.coverage.dimensions).toHaveLength(10);
    const counts = data.coverage.counts;
    expect(counts.sourced + counts.proxy + counts.assumed + counts.missing).toBe(10);
    expect(data.reconciledAt).toBe(Date.parse(h.sim.manifest().now));

    h.sim.advance(QUEUE_MS);
    const mid = (await progress()).body.data;
    expect(mid.readiness.training).toBe(inTraining);
    expect(
      mid.members.find((m: { mindId: string }) => m.mindId === h.id("minds", "queuedMind")).update,
    ).toMatchObject({ trainingStatus: "running" });
    expect(mid.reconciledAt).toBe(data.reconciledAt + QUEUE_MS);

    h.sim.advance(RUN_MS);
    const after = (await progress()).body.data;
    expect(after.readiness).toEqual({
      total,
      ready: total - TRAINING_COUNTS.failed,
      training: 0,
      failed: 0,
      isReady: false,
      startsNow: true,
      leftOut: 0,
      learning: 0,
      fullyTrained: false,
    });
  });

  it("reports a fully trained Audience as ready", async () => {
    const data = (await progress("trained")).body.data;
    expect(data.readiness).toMatchObject({ isReady: true, startsNow: true, fullyTrained: true, training: 0 });
  });
});

describe("GET /audiences/{id}/progress: access, research and coverage", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  const url = (id: string) => `/api/v1/audiences/${id}/progress`;

  it.each(["owner", "admin", "member", "teammate", "studyViewer"])("is readable by %s", async (as) => {
    const res = await h.call("GET", url(h.id("audiences", "main")), { as });
    expect(res.status).toBe(200);
    expect(res.body.data.members).toHaveLength(45);
  });

  it("is readable on a public Audience by anyone", async () => {
    const res = await h.call("GET", url(h.id("audiences", "public")), { as: "outsider" });
    expect(res.status).toBe(200);
  });

  it.each([
    ["a private Audience of someone else", "private", "outsider"],
    ["a private Audience seen by a collaborator of another", "private", "admin"],
  ])("answers 404 for %s", async (_name, handle, as) => {
    const res = await h.call("GET", url(h.id("audiences", handle)), { as });
    expectError(res, 404, "Audience not found");
  });

  it.each([
    "not-a-uuid",
    "00000000-0000-4000-8000-000000000000",
    "__proto__",
  ])("answers 404 (never 400) for the ID %s", async (id) => {
    const res = await h.call("GET", url(id));
    expectError(res, 404, "Audience not found");
  });

  it("answers 401 without a key", async () => {
    expect((await h.call("GET", url(h.id("audiences", "main")), { as: null })).status).toBe(401);
  });

  it("shows null coverage for an Audience without any, and research and coverage once Go deeper ran", async () => {
    const id = h.id("audiences", "private");
    const before = (await h.call("GET", url(id))).body.data;
    expect(before.coverage).toBeNull();
    expect(before).not.toHaveProperty("research");

    const accepted = await h.call("POST", `/api/v1/audiences/${id}/recalibrate`, {
      body: { deepen: { topics: ["pricing sensitivity"] } },
    });
    expect(accepted.status).toBe(202);
    const queued = (await h.call("GET", url(id))).body.data.research;
    // Queued and not started: no times and no outcome yet.
    const { startedAt, completedAt, outcome, ...where } = queued;
    expect(where).toEqual({ phase: "researching", status: "queued", stage: "researching", progress: 0 });
    expect([startedAt, completedAt, outcome]).toEqual([null, null, null]);

    const stages: string[] = [];
    const progressSeen: number[] = [];
    for (let t = 0; t < RESEARCH_MS; t += RESEARCH_STEP_MS / 2) {
      h.sim.advance(t === 0 ? RESEARCH_START_MS : RESEARCH_STEP_MS / 2);
      const research = (await h.call("GET", url(id))).body.data.research;
      if (stages.at(-1) !== research.stage) stages.push(research.stage);
      progressSeen.push(research.progress);
    }
    expect(stages).toEqual(["researching", "recalibrating", "done"]);
    expect(progressSeen).toEqual([...progressSeen].sort((a, b) => a - b));

    const after = (await h.call("GET", url(id))).body.data;
    expect(after.research).toMatchObject({
      phase: "researched",
      status: "completed",
      stage: "done",
      progress: 100,
      outcome: {
        chartsAdded: 11,
        sourcesAdded: 1,
        membersRecalibrated: 5,
        applied: true,
        coverage: { sourced: 10, proxy: 0, assumed: 0, missing: 0 },
        topics: [{ topic: "pricing sensitivity", status: "added" }],
      },
    });
    expect(after.research.outcome.dimensionsImproved).toHaveLength(10);
    expect(after.research.outcome.dimensionsImproved[0]).toMatchObject({ from: "missing", to: "sourced" });
    expect(Date.parse(after.research.completedAt)).toBeGreaterThan(Date.parse(after.research.startedAt));
    expect(after.coverage.counts).toEqual({ sourced: 10, proxy: 0, assumed: 0, missing: 0 });
    for (const d of after.coverage.dimensions) expect(Array.isArray(d.distribution)).toBe(true);
  });
});
