import { describe, expect, it } from "vitest";
import { refusal, stageWorld } from "../../../testing/stages.ts";

describe("the fault stage", () => {
  it("answers an armed fault's status for its method and path, before the key is looked at", async () => {
    const w = await stageWorld();
    w.life.faults.add({ method: "GET", path: "/api/v1/auth/me", status: 503 });
    const taken = await refusal(() => w.runTo("fault", w.call("GET", "/api/v1/auth/me")));
    expect(taken.status).toBe(503);
    expect(taken.message).toMatch(/^Injected fault \(rule /);
  });

  it("passes on what no fault matches, and waits a fault's delay before passing on", async () => {
    const waited: number[] = [];
    const w = await stageWorld({ sleep: async (ms) => void waited.push(ms) });
    expect(await w.runTo("fault", w.call("GET", "/api/v1/auth/me"))).toBeUndefined();
    w.life.faults.add({ method: "GET", path: "/api/v1/auth/me", delayMs: 250 });
    expect(await w.runTo("fault", w.call("GET", "/api/v1/auth/me"))).toBeUndefined();
    expect(waited).toEqual([250]);
  });
});
