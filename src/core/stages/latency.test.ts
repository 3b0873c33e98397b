import { describe, expect, it } from "vitest";
import { stageWorld } from "../../../testing/stages.ts";

describe("the latency stage", () => {
  it("waits nothing, and at once, when no latency is set", async () => {
    const w = await stageWorld({ sleep: async () => expect.fail("no wait expected") });
    expect(w.stage("latency").run(w.call("GET", "/api/v1/auth/me"))).toBeUndefined();
  });

  it("waits the configured latency, a range drawn within its bounds", async () => {
    const waited: number[] = [];
    const w = await stageWorld({ latencyMs: 40, sleep: async (ms) => void waited.push(ms) });
    expect(await w.stage("latency").run(w.call("GET", "/api/v1/auth/me"))).toBeUndefined();
    w.life.configure({ latencyMs: [10, 20] });
    for (let i = 0; i < 20; i++) await w.stage("latency").run(w.call("GET", "/api/v1/auth/me"));
    expect(waited[0]).toBe(40);
    expect(waited.slice(1).every((ms) => ms >= 10 && ms <= 20)).toBe(true);
    expect(new Set(waited.slice(1)).size).toBeGreaterThan(1);
  });
});
