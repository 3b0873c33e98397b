/**
 * Mind training on the virtual clock (description, "Member training status" and the progress endpoint's
 * `members[].update`).
 *
 * A training run is two jobs: start (`queued` → `running`, after which the profile and system prompt exist, so
 * `readyToChat` is true while the Mind keeps learning in the background) and completion (`running` →
 * `completed`, learning done). A Mind that could already chat keeps `readyToChat` throughout. Each
 * job carries the run's sequence number, so starting a new run simply makes the older jobs stale. A member
 * whose last attempt failed and that may still be retrained automatically is being repaired: it carries
 * `beingRepaired: true` while the retrain waits and runs, and is reported as `queued` throughout; the
 * repair ends with `completed`. Attempts that fail for good (`failedForGood`) stay
 * `failed` and are never retrained automatically.
 *
 * Simulator decision: runs never fail on their own (runs stay deterministic); `recordFailure` lets
 * scenarios, other modules and tests make an attempt fail.
 *
 * Every move goes through `moveTraining`, which replaces the Mind's record rather than changing it: Mind
 * records are shared, frozen, by every world built from the same scenario and seed (src/core/world/world.ts).
 */

import type { components } from "../../contract/types.gen.ts";
import type { JobHandler, ResourceModule } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import { madeEntries } from "../../core/world/deferred-map.ts";
import type { AudienceRecord, MindRecord, MindTraining } from "../../core/world/state.ts";
import { table } from "../../core/world/state.ts";

/** Virtual time a run waits in the queue before it starts. */
export const QUEUE_MS = 1_000;
/** Virtual time a started run takes to complete. */
export const RUN_MS = 4_000;
/** Attempts a Mind gets, including automatic retrains, before it has failed for good. */
export const MAX_ATTEMPTS = 3;

export const JOB_START = "training.start";
export const JOB_COMPLETE = "training.complete";

interface RunPayload {
  mindId: string;
  seq: number;
}

/** Per Mind: the sequence number of its newest run, and whether that run still has a job queued. */
export interface RunRecord {
  seq: number;
  inFlight: boolean;
}

const runs = (s: Services) => table<RunRecord>(s.state, "training.runs");

/** The progress endpoint's `update` object for one member, as the contract defines it. */
export type TrainingView = components["schemas"]["MemberProgress"]["update"];

/** Pure: how a Mind's training is reported (a member being repaired reads as `queued`). */
export function trainingView(mind: Pick<MindRecord, "training">): TrainingView {
  const t: MindTraining = mind.training;
  return {
    // A member that failed for good no longer answers (the description's `startsNow`).
    readyToChat: t.readyToChat && !t.failedForGood,
    ...(t.beingRepaired ? { beingRepaired: true as const } : {}),
    learningInBackground: t.learning,
    fullyTrained: t.readyToChat && !t.learning && !t.beingRepaired && t.status === "completed",
    trainingStatus: t.beingRepaired ? "queued" : t.status,
  };
}

/** True while a run of this Mind has a job queued that will move it on. */
export function isTrainingInFlight(s: Services, mindId: string): boolean {
  return runs(s).get(mindId)?.inFlight === true;
}

/** The one way a Mind's training moves: a new record with the new training, in place of the old one. */
function moveTraining(s: Services, mind: MindRecord, patch: Partial<MindTraining>): MindRecord {
  const moved = { ...mind, training: { ...mind.training, ...patch } };
  s.state.minds.set(mind.id, moved);
  return moved;
}

function newRun(s: Services, mindId: string): number {
  const seq = (runs(s).get(mindId)?.seq ?? 0) + 1;
  runs(s).set(mindId, { seq, inFlight: true });
  return seq;
}

/**
 * Queues a training run for a Mind (`queued` now, `running` after QUEUE_MS, `completed` RUN_MS later).
 * A Mind whose run is already in flight keeps that run unless `restart` is set. Returns whether a run
 * was scheduled.
 */
export function scheduleTraining(s: Services, mindId: string, opts: { restart?: boolean } = {}): boolean {
  const mind = s.state.minds.get(mindId);
  if (!mind) return false;
  if (isTrainingInFlight(s, mindId) && !opts.restart) return false;
  moveTraining(s, mind, { status: "queued", learning: true, failedForGood: false });
  const payload: RunPayload = { mindId, seq: newRun(s, mindId) };
  s.schedule(QUEUE_MS, JOB_START, payload);
  return true;
}

/** Starts the repair of a Mind whose last attempt failed: reported `queued`, being repaired. */
function repair(s: Services, mind: MindRecord): boolean {
  moveTraining(s, mind, { beingRepaired: true });
  return scheduleTraining(s, mind.id, { restart: true });
}

/**
 * Records a failed attempt. With attempts left the Mind is retrained automatically (reported as
 * `queued` with `beingRepaired`); otherwise it has failed for good.
 */
export function recordFailure(s: Services, mindId: string): void {
  const mind = s.state.minds.get(mindId);
  if (!mind) return;
  const t = mind.training;
  const run = runs(s).get(mindId);
  if (run) run.inFlight = false;
  if (t.attempts < MAX_ATTEMPTS) {
    repair(s, mind);
    return;
  }
  moveTraining(s, mind, { status: "failed", beingRepaired: false, failedForGood: true, learning: false });
}

/**
 * Background effect of member changes: every member whose training failed and that may still be
 * retrained automatically is retrained (failed-for-good members are left alone), and a member being
 * repaired whose retrain has no job queued gets one. Returns how many retrains were scheduled.
 */
export function retrainFailed(s: Services, audience: AudienceRecord): number {
  let scheduled = 0;
  for (const id of audience.memberIds) {
    const mind = s.state.minds.get(id);
    if (!mind || mind.training.failedForGood) continue;
    const t = mind.training;
    const failed = t.status === "failed";
    const stalledRepair = t.beingRepaired && !isTrainingInFlight(s, id);
    if ((failed || stalledRepair) && repair(s, mind)) scheduled++;
  }
  return scheduled;
}

/** A run job's handler, which acts only while the run is still its Mind's current one. */
function forCurrentRun(act: (s: Services, mind: MindRecord, payload: RunPayload) => void): JobHandler {
  return (s, payload) => {
    const p = payload as RunPayload;
    const run = runs(s).get(p.mindId);
    const mind = s.state.minds.get(p.mindId);
    if (run && run.seq === p.seq && run.inFlight && mind) act(s, mind, p);
  };
}

const start = forCurrentRun((s, mind, payload) => {
  // A started run writes the profile and system prompt first: the Mind can chat while it keeps learning.
  moveTraining(s, mind, {
    status: "running",
    learning: true,
    attempts: mind.training.attempts + 1,
    readyToChat: true,
  });
  s.schedule(RUN_MS, JOB_COMPLETE, payload);
});

const complete = forCurrentRun((s, mind) => {
  moveTraining(s, mind, {
    status: "completed",
    beingRepaired: false,
    failedForGood: false,
    learning: false,
    readyToChat: true,
  });
  const run = runs(s).get(mind.id);
  if (run) run.inFlight = false;
});

/**
 * Minds a scenario leaves mid-flight move on by themselves: queued and repairing Minds start after
 * QUEUE_MS, running ones complete after RUN_MS, and a failed Mind that is not failed for good is repaired.
 */
function init(s: Services): void {
  // A Mind a scenario makes on demand is trained (ScenarioBuilder.lazyMinds): only those made can be in flight.
  for (const [, mind] of madeEntries(s.state.minds)) {
    const t = mind.training;
    if (t.status === "running") {
      const payload: RunPayload = { mindId: mind.id, seq: newRun(s, mind.id) };
      moveTraining(s, mind, { learning: true });
      s.schedule(RUN_MS, JOB_COMPLETE, payload);
    } else if (t.status === "queued") {
      const payload: RunPayload = { mindId: mind.id, seq: newRun(s, mind.id) };
      moveTraining(s, mind, { learning: true });
      s.schedule(QUEUE_MS, JOB_START, payload);
    } else if (t.status === "failed" && !t.failedForGood) {
      repair(s, mind);
    }
  }
}

export const training: ResourceModule = {
  routes: {},
  jobs: { [JOB_START]: start, [JOB_COMPLETE]: complete },
  init,
};
