/**
 * Proof that each check can fail: every fault case runs its checks against a server with that one fault
 * and must be reported by the matching check.
 */
import { describe, expect, it } from "vitest";
import { FAULTS } from "./faults.ts";
import { brokenServer, expectReported, runAll } from "./harness.ts";

// Shrinking is shown in replay.test.ts; here a failure only has to be found, so it is shrunk briefly.
process.env.CONFORMANCE_SHRINK_MS ??= "1500";

describe("each deliberate fault is reported by its check", () => {
  it("has at least 25 distinct faults", () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBeGreaterThanOrEqual(25);
  });
  for (const c of FAULTS) {
    it.concurrent(`${c.name} → ${c.reportedBy}`, async () => {
      const server = await brokenServer(c.fault, 7, c.layer);
      try {
        const found = await runAll(c.checks, server.info);
        expectReported(found, c);
      } finally {
        await server.close();
      }
    });
  }
});
