import { describe, expect, it } from "vitest";
import { refusal, routed, through } from "../../../testing/stages.ts";
import type { Caller } from "../request/auth.ts";
import { RateLimiter } from "../request/rate-windows.ts";
import { grown } from "./compose.ts";
import { rateLimit } from "./rate-limit.ts";

const as = (id: string) => ({ user: { id }, key: { id: `k-${id}` } }) as unknown as Caller;
const by = (caller: Caller | null, path = "/api/v1/auth/me") => grown(routed("GET", path), { caller });

describe("the rate-limit stage", () => {
  it("counts each account's requests, says what is left, and refuses the one over with 429 and Retry-After", async () => {
    const limiter = new RateLimiter(60_000);
    const stage = rateLimit((userId) => limiter.take(userId, 0, 2));
    for (const left of ["1", "0"]) {
      const { passed } = await through(stage, by(as("owner")));
      expect(passed?.headers["ratelimit-remaining"]).toBe(left);
    }
    const over = await refusal(() => through(stage, by(as("owner"))));
    expect(over.status).toBe(429);
    expect(over.headers["retry-after"]).toBe("60");
    // Another account has a window of its own.
    expect((await through(stage, by(as("solo")))).passed).not.toBeNull();
  });

  it("counts nothing for an operation without rate-limit headers, or without a caller", async () => {
    const stage = rateLimit(() => expect.fail("nothing to count"));
    for (const c of [by(as("owner"), "/_openapi.json"), by(null, "/_openapi.json")]) {
      const { passed } = await through(stage, c);
      expect(passed?.headers["ratelimit-limit"]).toBeUndefined();
    }
  });
});
