import { beforeEach, describe, expect, it } from "vitest";
import { type Harness, harness, live } from "../../../testing/harness.ts";
import type { Services } from "../../core/services.ts";
import type { AudienceRecord, MindRecord, MindTraining } from "../../core/world/state.ts";
import { TRAINING_STATES } from "../../scenarios/training.ts";
import { MEMBERS_EFFECTS_MS } from "../members/members.ts";
import { COMPLETED_TRAINING } from "../minds.ts";
import {
  isTrainingInFlight,
  MAX_ATTEMPTS,
  QUEUE_MS,
  RUN_MS,
  recordFailure,
  retrainFailed,
  scheduleTraining,
  trainingView,
} from "./training.ts";

const view = (training: MindTraining) => trainingView({ training });

describe("trainingView", () => {
  it("reports a trained Mind as fully trained, without beingRepaired", () => {
    const v = view(COMPLETED_TRAINING);
    expect(v).toEqual({
      readyToChat: true,
      learningInBackground: false,
      fullyTrained: true,
      trainingStatus: "completed",
    });
    expect(v).not.toHaveProperty("beingRepaired");
  });

  it("reports a member being repaired as queued, with beingRepaired true, in the progress field order", () => {
    const v = view(TRAINING_STATES.repairing);
    expect(v).toEqual({
      readyToChat: true,
      beingRepaired: true,
      learningInBackground: true,
      fullyTrained: false,
      trainingStatus: "queued",
    });
    expect(Object.keys(v)).toEqual([
      "readyToChat",
      "beingRepaired",
      "learningInBackground",
      "fullyTrained",
      "trainingStatus",
    ]);
    // Still reported as queued while the retrain runs.
    expect(view({ ...TRAINING_STATES.repairing, status: "running" }).trainingStatus).toBe("queued");
  });

  it.each([
    ["queued", TRAINING_STATES.queued, "queued", false],
    ["running", TRAINING_STATES.running, "running", false],
    ["failed for good", TRAINING_STATES.failed, "failed", false],
    ["completed but still learning", { ...COMPLETED_TRAINING, learning: true }, "completed", false],
    ["completed without a profile", { ...COMPLETED_TRAINING, readyToChat: false }, "completed", false],
  ] as const)("reports %s", (_n, training, status, fully) => {
    const v = view(training);
    expect(v.trainingStatus).toBe(status);
    expect(v.fullyTrained).toBe(fully);
    expect(v.learningInBackground).toBe(training.learning);
    expect(v).not.toHaveProperty("beingRepaired");
  });
});

describe("training on the virtual clock (training scenario)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness({ scenario: "training" });
  });
  const mind = (handle: string): MindRecord => live(h.sim.state.minds, h.id("minds", handle));
  /** The services a job or handler gets, enough for the training helpers: the engine's state and queue. */
  const svc = (): Services =>
    ({
      state: h.sim.state,
      clock: h.sim.clock,
      schedule: (ms: number, kind: string, payload: unknown) => void h.sim.clock.schedule(ms, kind, payload),
    }) as unknown as Services;

  it("moves a queued Mind to running, then to completed", () => {
    const m = mind("queuedMind");
    expect(view(m.training)).toMatchObject({ trainingStatus: "queued", fullyTrained: false });
    h.sim.advance(QUEUE_MS - 1);
    expect(m.training.status).toBe("queued");
    h.sim.advance(1);
    expect(m.training).toMatchObject({ status: "running", learning: true, readyToChat: true, attempts: 1 });
    expect(view(m.training)).toMatchObject({ trainingStatus: "running", learningInBackground: true });
    h.sim.advance(RUN_MS);
    expect(m.training).toMatchObject({ status: "completed", learning: false, readyToChat: true });
    expect(view(m.training)).toMatchObject({ trainingStatus: "completed", fullyTrained: true });
  });

  it("completes a running Mind", () => {
    const m = mind("runningMind");
    h.sim.advance(RUN_MS - 1);
    expect(m.training.status).toBe("running");
    h.sim.advance(1);
    expect(m.training).toMatchObject({ status: "completed", attempts: 1 });
  });

  it("repairs a member whose attempt failed: queued and being repaired throughout, then completed", () => {
    const m = mind("repairingMind");
    expect(view(m.training)).toMatchObject({ beingRepaired: true, trainingStatus: "queued" });
    h.sim.advance(QUEUE_MS);
    expect(m.training).toMatchObject({ status: "running", beingRepaired: true, attempts: 3 });
    expect(view(m.training)).toMatchObject({ beingRepaired: true, trainingStatus: "queued" });
    h.sim.advance(RUN_MS);
    expect(m.training).toMatchObject({ status: "completed", beingRepaired: false });
    expect(view(m.training)).not.toHaveProperty("beingRepaired");
    expect(view(m.training).fullyTrained).toBe(true);
  });

  it("leaves a Mind that failed for good alone, whatever happens to its Audience", async () => {
    const m = mind("failedMind");
    const before = { ...m.training };
    h.sim.advance(60_000);
    const trainingAudience = h.id("audiences", "training");
    expect(retrainFailed(svc(), h.sim.state.audiences.get(trainingAudience) as AudienceRecord)).toBe(0);
    const other = h.audience("trained")?.memberIds[0] as string;
    const r = await h.call("POST", `/api/v1/audiences/${trainingAudience}/members`, {
      body: { mindId: other },
    });
    expect(r.status).toBe(200);
    h.sim.advance(MEMBERS_EFFECTS_MS + QUEUE_MS + RUN_MS);
    expect(m.training).toEqual(before);
    expect(view(m.training)).toMatchObject({ trainingStatus: "failed", fullyTrained: false });
  });

  it("brings every member of the scenario's Audience to completed, except the one failed for good", () => {
    h.sim.advance(QUEUE_MS + RUN_MS);
    const a = h.audience("training");
    const statuses = (a?.memberIds ?? []).map((id) =>
      view((h.sim.state.minds.get(id) as MindRecord).training),
    );
    expect(statuses.filter((v) => v.trainingStatus === "completed")).toHaveLength(statuses.length - 1);
    expect(statuses.filter((v) => v.trainingStatus === "failed")).toHaveLength(1);
    expect(h.sim.clock.pending().filter((j) => j.kind.startsWith("training."))).toHaveLength(0);
  });

  it("retrains a member whose attempt failed when its Audience's members change", async () => {
    const m = mind("completedMind");
    m.training = { ...m.training, status: "failed", failedForGood: false, attempts: 1 };
    const path = `/api/v1/audiences/${h.id("audiences", "training")}/members/${h.id("minds", "queuedMind")}`;
    expect((await h.call("DELETE", path)).status).toBe(204);
    h.sim.advance(MEMBERS_EFFECTS_MS);
    expect(view(m.training)).toMatchObject({ beingRepaired: true, trainingStatus: "queued" });
    h.sim.advance(QUEUE_MS + RUN_MS);
    expect(m.training).toMatchObject({ status: "completed", beingRepaired: false, attempts: 2 });
  });

  it("records failures: retried automatically while attempts are left, then failed for good", () => {
    const s = svc();
    const m = mind("completedMind");
    scheduleTraining(s, m.id, { restart: true });
    h.sim.advance(QUEUE_MS);
    expect(m.training.attempts).toBe(2);
    recordFailure(s, m.id);
    expect(view(m.training)).toMatchObject({ beingRepaired: true, trainingStatus: "queued" });
    h.sim.advance(QUEUE_MS);
    expect(m.training).toMatchObject({ status: "running", attempts: MAX_ATTEMPTS });
    recordFailure(s, m.id);
    expect(m.training).toMatchObject({
      status: "failed",
      failedForGood: true,
      beingRepaired: false,
      learning: false,
    });
    expect(isTrainingInFlight(s, m.id)).toBe(false);
    h.sim.advance(QUEUE_MS + RUN_MS);
    expect(m.training.status).toBe("failed");
  });

  it("keeps one run per Mind: scheduling again is a no-op, a restart supersedes the old jobs", () => {
    const s = svc();
    const m = mind("queuedMind");
    expect(scheduleTraining(s, m.id)).toBe(false);
    h.sim.advance(QUEUE_MS / 2);
    expect(scheduleTraining(s, m.id, { restart: true })).toBe(true);
    // The superseded run's start would have fired here.
    h.sim.advance(QUEUE_MS / 2);
    expect(m.training.status).toBe("queued");
    h.sim.advance(QUEUE_MS / 2);
    expect(m.training).toMatchObject({ status: "running", attempts: 1 });
    h.sim.advance(RUN_MS);
    expect(m.training.status).toBe("completed");
    expect(scheduleTraining(s, "0b7c6d5e-4f3a-4b2c-9d1e-0f9e8d7c6b5a")).toBe(false);
  });

  it("moves on by itself in real-clock mode", async () => {
    let wall = 1_000_000;
    const real = await harness({ scenario: "training", clock: "real", wallClock: () => wall });
    const queued = live(real.sim.state.minds, real.id("minds", "queuedMind"));
    const repairing = live(real.sim.state.minds, real.id("minds", "repairingMind"));
    wall += QUEUE_MS + RUN_MS;
    // Due jobs run before the next request is served.
    expect((await real.call("GET", "/api/v1/auth/me")).status).toBe(200);
    expect(queued.training.status).toBe("completed");
    expect(repairing.training).toMatchObject({ status: "completed", beingRepaired: false });
  });
});
