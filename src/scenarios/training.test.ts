import { describe, expect, it } from "vitest";
import { buildScenario } from "../../testing/scenarios.ts";
import { TRAINING_COUNTS, trainingScenario } from "./training.ts";

const { state, manifest } = buildScenario(trainingScenario, 1);

function mindTraining(handle: string) {
  const m = state.minds.get(manifest.minds[handle]?.id ?? "");
  if (!m) throw new Error(`no mind ${handle}`);
  return m.training;
}

describe("training scenario", () => {
  const members = (state.audiences.get(manifest.audiences.training?.id ?? "")?.memberIds ?? []).map((id) => {
    const m = state.minds.get(id);
    if (!m) throw new Error(`unknown member ${id}`);
    return m;
  });

  it("has members in every training state, in the stated numbers", () => {
    const count = (pred: (t: (typeof members)[number]["training"]) => boolean) =>
      members.filter((m) => pred(m.training)).length;
    expect(members).toHaveLength(
      TRAINING_COUNTS.queued +
        TRAINING_COUNTS.running +
        TRAINING_COUNTS.repairing +
        TRAINING_COUNTS.failed +
        TRAINING_COUNTS.completed,
    );
    expect(count((t) => t.status === "queued" && !t.beingRepaired)).toBe(TRAINING_COUNTS.queued);
    expect(count((t) => t.status === "running")).toBe(TRAINING_COUNTS.running);
    expect(count((t) => t.status === "queued" && t.beingRepaired)).toBe(TRAINING_COUNTS.repairing);
    expect(count((t) => t.status === "failed")).toBe(TRAINING_COUNTS.failed);
    expect(count((t) => t.status === "completed")).toBe(TRAINING_COUNTS.completed);
  });

  it("names one Mind per state", () => {
    expect(mindTraining("queuedMind")).toMatchObject({ status: "queued", beingRepaired: false });
    expect(mindTraining("runningMind")).toMatchObject({ status: "running", beingRepaired: false });
    expect(mindTraining("repairingMind")).toMatchObject({
      status: "queued",
      beingRepaired: true,
      failedForGood: false,
    });
    expect(mindTraining("failedMind")).toMatchObject({
      status: "failed",
      beingRepaired: false,
      failedForGood: true,
    });
    expect(mindTraining("completedMind")).toMatchObject({
      status: "completed",
      readyToChat: true,
      learning: false,
    });
  });

  it("never shares a training object between Minds", () => {
    const objects = new Set(members.map((m) => m.training));
    expect(objects.size).toBe(members.length);
  });

  it("keeps the comparison Audience fully trained", () => {
    const trained = state.audiences.get(manifest.audiences.trained?.id ?? "");
    expect(trained?.memberIds.length).toBeGreaterThan(0);
    for (const id of trained?.memberIds ?? []) expect(state.minds.get(id)?.training.status).toBe("completed");
  });
});
