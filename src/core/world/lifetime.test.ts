import { describe, expect, it } from "vitest";
import { served } from "../../served.ts";
import { wireEngine } from "../engine.ts";

describe("the lifetime's latency", () => {
  it("waits the configured latency, a range drawn within its bounds from the world's latency stream", async () => {
    const waited: number[] = [];
    const { life } = wireEngine({
      ...served,
      clock: "manual",
      latencyMs: 40,
      sleep: async (ms) => void waited.push(ms),
    });
    await life.start();
    await life.delay();
    life.configure({ latencyMs: [10, 20] });
    for (let i = 0; i < 20; i++) await life.delay();
    expect(waited[0]).toBe(40);
    expect(waited.slice(1).every((ms) => ms >= 10 && ms <= 20)).toBe(true);
    expect(new Set(waited.slice(1)).size).toBeGreaterThan(1);
  });
});
