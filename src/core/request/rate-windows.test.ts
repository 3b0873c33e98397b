import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-windows.ts";

describe("RateLimiter", () => {
  it("allows exactly the limit in one window, then 429 with the seconds left, then recovers", () => {
    const rl = new RateLimiter(60_000);
    for (let i = 1; i <= 3; i++)
      expect(rl.take("u", 1000, 3)).toMatchObject({ allowed: true, remaining: 3 - i });
    const denied = rl.take("u", 31_000, 3);
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    expect(rl.take("u", 61_000, 3)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("counts accounts apart", () => {
    const rl = new RateLimiter(60_000);
    rl.take("a", 0, 1);
    expect(rl.take("a", 1, 1).allowed).toBe(false);
    expect(rl.take("b", 1, 1).allowed).toBe(true);
  });
});
