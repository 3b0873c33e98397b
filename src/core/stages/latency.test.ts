import { describe, expect, it } from "vitest";
import { PASSED, routed } from "../../../testing/stages.ts";
import type { WithBody } from "./call.ts";
import { latency } from "./latency.ts";

const anyCall = routed("GET", "/api/v1/auth/me") as unknown as WithBody;

describe("the latency stage", () => {
  it("waits nothing, and at once, when no latency is set", () => {
    const stage = latency({ configured: () => false, delay: () => expect.fail("no wait expected") });
    expect(stage.run(anyCall, () => PASSED)).toBe(PASSED);
  });

  it("waits the configured latency before passing on", async () => {
    let waited = false;
    const stage = latency({
      configured: () => true,
      delay: async () => {
        waited = true;
      },
    });
    const done = stage.run(anyCall, () => {
      expect(waited).toBe(true);
      return PASSED;
    });
    expect(done).toBeInstanceOf(Promise);
    expect(await done).toBe(PASSED);
  });
});
