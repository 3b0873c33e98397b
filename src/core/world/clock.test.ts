import { describe, expect, it } from "vitest";
import { type Job, VirtualClock } from "./clock.ts";

function manual(start = 1000) {
  const ran: { kind: string; at: number; now: number }[] = [];
  const clock: VirtualClock = new VirtualClock(
    "manual",
    start,
    () => 0,
    (job: Job) => {
      ran.push({ kind: job.kind, at: job.at, now: clock.now() });
      if (job.kind === "chain") clock.schedule(0, "chained", null);
    },
  );
  return { clock, ran };
}

describe("VirtualClock", () => {
  it("does not move in manual mode until advanced", () => {
    const { clock } = manual();
    expect(clock.now()).toBe(1000);
    clock.advance(250);
    expect(clock.now()).toBe(1250);
  });

  it("runs due jobs in time order, insertion order breaking ties, each seeing its own due time", () => {
    const { clock, ran } = manual();
    clock.schedule(300, "c", null);
    clock.schedule(100, "a", null);
    clock.schedule(100, "b", null);
    clock.schedule(900, "late", null);
    clock.advance(500);
    expect(ran.map((r) => r.kind)).toEqual(["a", "b", "c"]);
    expect(ran.map((r) => r.now)).toEqual([1100, 1100, 1300]);
    expect(clock.pending().map((j) => j.kind)).toEqual(["late"]);
  });

  it("runs work a job schedules for its own instant in the same pass", () => {
    const { clock, ran } = manual();
    clock.schedule(10, "chain", null);
    clock.advance(10);
    expect(ran.map((r) => r.kind)).toEqual(["chain", "chained"]);
  });

  it("follows the wall clock in real mode and runs jobs lazily when asked", () => {
    let wall = 0;
    const ran: string[] = [];
    const clock = new VirtualClock(
      "real",
      5000,
      () => wall,
      (j) => ran.push(j.kind),
    );
    clock.schedule(2000, "build", null);
    wall = 1500;
    clock.runDue();
    expect(clock.now()).toBe(6500);
    expect(ran).toEqual([]);
    wall = 2500;
    clock.runDue();
    expect(ran).toEqual(["build"]);
  });

  it("cancels matching jobs and round-trips through a snapshot", () => {
    const { clock } = manual();
    clock.schedule(100, "keep", { id: 1 });
    clock.schedule(100, "drop", { id: 2 });
    clock.cancel((j) => j.kind === "drop");
    const snap = clock.snapshot();
    const { clock: other, ran } = manual(0);
    other.restore(snap);
    expect(other.now()).toBe(1000);
    other.advance(100);
    expect(ran.map((r) => r.kind)).toEqual(["keep"]);
  });

  it("tells the queued jobs of a kind through scheduling, running, cancelling and restoring", () => {
    const { clock } = manual();
    const kinds = (c: VirtualClock, kind: string) => [...c.pendingOf(kind)].map((j) => j.payload);
    clock.schedule(100, "build", 1);
    clock.schedule(300, "build", 2);
    clock.schedule(200, "other", 3);
    clock.schedule(400, "build", 4);
    expect(kinds(clock, "build").sort()).toEqual([1, 2, 4]);
    clock.advance(150);
    expect(kinds(clock, "build").sort()).toEqual([2, 4]);
    clock.cancel((j) => j.payload === 4);
    expect(kinds(clock, "build")).toEqual([2]);
    expect(kinds(clock, "other")).toEqual([3]);
    const { clock: other } = manual(0);
    other.schedule(5, "build", 9);
    other.restore(clock.snapshot());
    expect(kinds(other, "build")).toEqual([2]);
    expect(kinds(other, "none")).toEqual([]);
  });
});
