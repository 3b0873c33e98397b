/**
 * No false alarm on a correct target: the unbroken simulator seen as a deployment (a config only, the
 * contract's 300 requests a minute counted in one place, every optional field of the config set), run quick
 * and deep with the kit's own runner, passes with nothing found and nothing inconclusive. What assumes a
 * fresh window (exact counting), an untouched account or a quiet clock must arrange it or not assume it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import { runChecks } from "../lib/running/runner.ts";
import { deploymentServer } from "./harness.ts";

const dir = mkdtempSync(join(tmpdir(), "kit-deployment-clean-"));
const before = process.env.CONFORMANCE_REPORTS_DIR;
beforeAll(() => {
  process.env.CONFORMANCE_REPORTS_DIR = dir;
});
afterAll(() => {
  if (before === undefined) delete process.env.CONFORMANCE_REPORTS_DIR;
  else process.env.CONFORMANCE_REPORTS_DIR = before;
  rmSync(dir, { recursive: true, force: true });
});

for (const deep of [false, true])
  it(`a ${deep ? "deep" : "quick"} run against a correct deployment finds nothing and leaves nothing unjudged`, async () => {
    const server = await deploymentServer(null, "host", {
      speed: 20,
      rateLimitPerMinute: 300,
      countedInOnePlace: true,
      deep,
      realSeconds: true,
      changeable: ["main", "private", "public", "large", "empty", "atCap", "soloAudience"],
    });
    const lines: string[] = [];
    try {
      const summary = await runChecks(server.info, { checks: allChecks, print: (l) => lines.push(l) });
      const found = lines.filter((l) => /^\s+! found by|violation\(s\)|inconclusive/.test(l));
      expect(found, lines.join("\n").slice(-4000)).toEqual([]);
      expect(summary.failed).toBe(0);
      expect(summary.inconclusive).toBe(0);
      expect(summary.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  }, 600_000);
