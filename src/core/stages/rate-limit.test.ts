import { describe, expect, it } from "vitest";
import { refusal, stageWorld } from "../../../testing/stages.ts";

describe("the rate-limit stage", () => {
  it("counts each account's requests, says what is left, and refuses the one over with 429 and Retry-After", async () => {
    const w = await stageWorld({ rateLimitPerMinute: 2 });
    for (const left of ["1", "0"]) {
      const call = w.call("GET", "/api/v1/auth/me", { as: "owner" });
      expect(await w.runTo("rate-limit", call)).toBeUndefined();
      expect(call.headers["ratelimit-remaining"]).toBe(left);
    }
    const over = await refusal(() =>
      w.runTo("rate-limit", w.call("GET", "/api/v1/auth/me", { as: "owner" })),
    );
    expect(over.status).toBe(429);
    expect(over.headers["retry-after"]).toBe("60");
    // Another account has a window of its own.
    expect(await w.runTo("rate-limit", w.call("GET", "/api/v1/auth/me", { as: "solo" }))).toBeUndefined();
  });

  it("counts nothing for an operation without rate-limit headers", async () => {
    const w = await stageWorld({ rateLimitPerMinute: 1 });
    for (let i = 0; i < 3; i++) {
      const call = w.call("GET", "/_openapi.json");
      expect(await w.runTo("rate-limit", call)).toBeUndefined();
      expect(call.headers["ratelimit-limit"]).toBeUndefined();
    }
  });
});
