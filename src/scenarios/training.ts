/**
 * An Audience whose members are in every training state the API reports, for progress views and
 * "being repaired" badges. The scenario sets the states; the engine moves them on its virtual clock.
 */

import type { MindRecord, MindTraining } from "../core/world/state.ts";
import { type CodeScenario, codeScenario, type ScenarioBuilder } from "./builder.ts";
import { addPriceCatalogue } from "./catalogue.ts";

const TOPIC = "Hospital procurement leads";

export const TRAINING_STATES = {
  queued: {
    status: "queued",
    beingRepaired: false,
    failedForGood: false,
    attempts: 0,
    readyToChat: true,
    learning: true,
  },
  running: {
    status: "running",
    beingRepaired: false,
    failedForGood: false,
    attempts: 1,
    readyToChat: true,
    learning: true,
  },
  /** The last attempt failed; the description reports such a member as queued and being repaired. */
  repairing: {
    status: "queued",
    beingRepaired: true,
    failedForGood: false,
    attempts: 2,
    readyToChat: true,
    learning: true,
  },
  failed: {
    status: "failed",
    beingRepaired: false,
    failedForGood: true,
    attempts: 3,
    readyToChat: true,
    learning: false,
  },
} as const satisfies Record<string, MindTraining>;

export const TRAINING_COUNTS = { queued: 3, running: 2, repairing: 1, failed: 1, completed: 7 } as const;

function setTraining(minds: readonly MindRecord[], training: MindTraining): void {
  for (const m of minds) m.training = { ...training };
}

function build(b: ScenarioBuilder): void {
  const owner = b.user("owner", { name: "Fatima Zahra Benali", plan: "premium", subscriptionActive: true });

  // One named Mind per state, then unnamed ones up to the stated counts.
  const queuedMind = b.mind("queuedMind", owner, { topic: TOPIC });
  const runningMind = b.mind("runningMind", owner, { topic: TOPIC });
  const repairingMind = b.mind("repairingMind", owner, { topic: TOPIC });
  const failedMind = b.mind("failedMind", owner, { topic: TOPIC });
  const completedMind = b.mind("completedMind", owner, { topic: TOPIC });
  const moreQueued = b.minds(owner, TRAINING_COUNTS.queued - 1, { label: "training:queued", topic: TOPIC });
  const moreRunning = b.minds(owner, TRAINING_COUNTS.running - 1, {
    label: "training:running",
    topic: TOPIC,
  });
  const moreCompleted = b.minds(owner, TRAINING_COUNTS.completed - 1, {
    label: "training:completed",
    topic: TOPIC,
  });

  setTraining([queuedMind, ...moreQueued], TRAINING_STATES.queued);
  setTraining([runningMind, ...moreRunning], TRAINING_STATES.running);
  setTraining([repairingMind], TRAINING_STATES.repairing);
  setTraining([failedMind], TRAINING_STATES.failed);

  // New Minds are younger than the rest of the Audience.
  for (const m of [queuedMind, ...moreQueued, runningMind, ...moreRunning]) m.createdAt = b.ago(0.02);
  repairingMind.createdAt = b.ago(0.2);
  failedMind.createdAt = b.ago(1);

  b.audience("training", owner, {
    name: "Hospital procurement leads (growing)",
    topic: TOPIC,
    members: [
      completedMind,
      ...moreCompleted,
      failedMind,
      repairingMind,
      runningMind,
      ...moreRunning,
      queuedMind,
      ...moreQueued,
    ],
    withGrounding: true,
  });
  // An Audience where training is finished, for comparison.
  b.audience("trained", owner, {
    name: "Independent pharmacists",
    topic: "Independent pharmacists",
    members: b.minds(owner, 5, { label: "trained", topic: "Independent pharmacists" }),
    withGrounding: true,
  });

  addPriceCatalogue(b);
}

export const trainingScenario: CodeScenario = codeScenario({
  name: "training",
  description:
    "A premium `owner` whose Audience `training` has members queued, running, failed and being repaired " +
    "(reported as queued), failed for good, and completed (handles `queuedMind`, `runningMind`, " +
    "`repairingMind`, `failedMind`, `completedMind`), beside a fully trained Audience `trained`.",
  build,
});
