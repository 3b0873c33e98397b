/**
 * Recorded changes replay to the same world: a snapshot taken at the start plus every change recorded since
 * gives back the world as it is now, record for record, IDs, random stream and pending jobs included. This
 * is what `--state-file` rests on (src/cli/stores/change-log.ts).
 */
import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import { createSimulator } from "../../simulator.ts";
import { digest } from "../world/digest.ts";
import type { Change } from "./changes.ts";

const HYPOTHESIS = {
  intent: "Split by seniority",
  subgroups: [
    { id: "junior", label: "Junior", definition: "Early-career staff" },
    { id: "senior", label: "Senior", definition: "Senior managers and directors" },
  ],
};

async function recorded(clock: "manual" | "real") {
  let wall = 1_000_000;
  const log: { change: Change; durable: boolean }[] = [];
  const h = await harness({
    clock,
    // A real clock whose wall time moves by 3 ms at every reading: changes must not depend on when they run.
    wallClock: () => (wall += 3),
    changes: {
      record: (change, durable) => {
        log.push({ change: structuredClone(change), durable });
        return durable ? Promise.resolve() : undefined;
      },
    },
  });
  const start = h.sim.snapshot();
  return { h, log, start };
}

describe("recorded changes", () => {
  for (const clock of ["manual", "real"] as const) {
    it(`replay to the same world (${clock} clock)`, async () => {
      const { h, log, start } = await recorded(clock);
      const main = h.id("audiences", "main");
      const base = `/api/v1/audiences/${main}`;
      expect((await h.call("POST", "/api/v1/api-keys", { body: { name: "replayed" } })).status).toBe(201);
      expect((await h.call("PUT", base, { body: { name: "Renamed", isPublic: false } })).status).toBe(200);
      const f = await h.call("POST", `${base}/formations`, { body: { hypothesis: HYPOTHESIS } });
      expect(f.status).toBe(200);
      if (clock === "manual") h.sim.advance(5_000);
      expect((await h.call("GET", `${base}/formations`)).status).toBe(200);
      const loose = h.id("minds", "ownLoose");
      expect((await h.call("POST", `${base}/members`, { body: { mindId: loose } })).status).toBe(200);
      expect((await h.call("DELETE", `${base}/members/${loose}`)).status).toBe(204);
      const dup = await h.call("POST", `${base}/duplicate`, {
        body: { name: "Copy" },
        headers: { "x-service-idempotency-key": "dup-1" },
      });
      expect(dup.status).toBe(201);
      expect((await h.call("POST", `${base}/recalibrate`, { body: {} })).status).toBeLessThan(300);
      expect((await h.call("POST", `${base}/export`, { body: { kind: "brief", format: "md" } })).status).toBe(
        200,
      );
      // Refused: recorded only if it moved the world, and the replay must agree either way.
      expect((await h.call("PUT", base, { body: {} })).status).toBe(400);
      h.sim.configure({ rateLimitPerMinute: 50 });
      if (clock === "manual") h.sim.advance(60_000);
      expect((await h.call("GET", `${base}/progress`)).status).toBe(200);
      // A pure read is not recorded, nor the lastUsedAt it stamps (README, --state-file); a change is, and
      // stamps it again.
      expect((await h.call("PUT", base, { body: { name: "Renamed again" } })).status).toBe(200);

      expect(log.some((l) => l.change.kind === "request" && l.durable)).toBe(true);
      expect(
        log.every(
          (l) => l.change.kind !== "request" || l.change.headers.every(([n]) => n !== "authorization"),
        ),
      ).toBe(true);
      const again = createSimulator({ clock, snapshot: start, wallClock: () => 5_000_000 });
      await again.replay(log.map((l) => l.change));
      const a = h.sim.snapshot();
      const b = again.snapshot();
      if (clock === "real") {
        // Only the present differs: the replayed clock stands at the last change, not at the original's wall.
        b.clock.now = a.clock.now;
        b.manifest.now = a.manifest.now;
      }
      expect(digest(b)).toBe(digest(a));
    });
  }

  it("replay a move of a real clock from the instant it was made, not from the change before it", async () => {
    let wall = 1_000_000;
    const log: Change[] = [];
    const h = await harness({
      clock: "real",
      wallClock: () => wall,
      changes: { record: (change) => void log.push(structuredClone(change)) },
    });
    const start = h.sim.snapshot();
    const base = `/api/v1/audiences/${h.id("audiences", "main")}`;
    expect((await h.call("PUT", base, { body: { name: "Before the wait" } })).status).toBe(200);
    wall += 10_000;
    h.sim.advance(60_000);
    const again = createSimulator({ clock: "real", snapshot: start, wallClock: () => 7_000_000 });
    await again.replay(log);
    expect(again.clock.now()).toBe(h.sim.clock.now());
    expect(digest(again.snapshot())).toBe(digest(h.sim.snapshot()));
  });

  it("record a reset, and replay it", async () => {
    const { h, log, start } = await recorded("manual");
    await h.sim.reset({ seed: 5 });
    expect(log.at(-1)).toEqual({ change: { kind: "reset", scenario: "default", seed: 5 }, durable: true });
    const again = createSimulator({ clock: "manual", snapshot: start });
    await again.replay(log.map((l) => l.change));
    expect(digest(again.snapshot())).toBe(digest(h.sim.snapshot()));
  });

  it("leave pure reads and requests refused before their handler unrecorded", async () => {
    const { h, log } = await recorded("manual");
    const main = h.id("audiences", "main");
    await h.call("GET", `/api/v1/audiences/${main}`);
    await h.call("GET", "/api/v1/auth/me");
    await h.call("POST", `/api/v1/audiences/${main}/members`, {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    await h.call("GET", "/api/v1/api-keys", { as: null });
    expect(log).toEqual([]);
  });
});
