/**
 * Proof that each check can fail: every fault case runs its checks against a server with that one fault
 * and must be reported by the matching check.
 */
import { describe, expect, it } from "vitest";
import { UNDECLARED_RULE } from "../lib/context.ts";
import { FAULTS } from "./faults.ts";
import { brokenServer, runAll } from "./harness.ts";

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
        expect(
          found.filter((v) => v.rule.includes(UNDECLARED_RULE)).map((v) => `${v.check}: ${v.rule}`),
        ).toEqual([]);
        const hit = found.filter((v) => v.check.startsWith(c.reportedBy));
        expect(
          hit.length,
          `not reported by ${c.reportedBy}; reported: ${[...new Set(found.map((v) => `${v.check}: ${v.message}`))].slice(0, 5).join(" | ") || "nothing"}`,
        ).toBeGreaterThan(0);
      } finally {
        await server.close();
      }
    });
  }
});
