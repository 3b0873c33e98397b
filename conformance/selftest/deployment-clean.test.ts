/**
 * No false alarm on a correct target: the unbroken simulator seen as a deployment (a config only, the
 * contract's 300 requests a minute counted in one place, every optional field of the config set), run quick
 * and deep with the kit's own runner, passes with nothing found and nothing inconclusive. What assumes a
 * fresh window (exact counting), an untouched account or a quiet clock must arrange it or not assume it.
 * A quick run that meets windows already spent in part (the run before, other traffic) waits for none to
 * open again: it judges what they allow, says what it left, and still finds nothing.
 */

import { expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import { SENTENCE_INDEX } from "../index/index.ts";
import { runChecks } from "../lib/running/runner.ts";
import { deploymentServer } from "./harness.ts";
import { scratchReports } from "./reports-dir.ts";

scratchReports("kit-deployment-clean-");

for (const deep of [false, true])
  it.concurrent(`a ${deep ? "deep" : "quick"} run against a correct deployment finds nothing and leaves nothing unjudged`, async () => {
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
      const summary = await runChecks(server.info, {
        checks: allChecks,
        sentences: SENTENCE_INDEX,
        print: (l) => lines.push(l),
      });
      const found = lines.filter((l) => /^\s+! found by|violation\(s\)|inconclusive/.test(l));
      expect(found, lines.join("\n").slice(-4000)).toEqual([]);
      expect(summary.failed).toBe(0);
      expect(summary.inconclusive).toBe(0);
      expect(summary.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  }, 600_000);

it.concurrent("a quick run that meets every account's window spent in part waits for none and finds nothing", async () => {
  // Windows of a real minute: what is spent before the run stays spent through it.
  const server = await deploymentServer(null, "host", {
    speed: 1,
    rateLimitPerMinute: 300,
    countedInOnePlace: true,
    deep: false,
    changeable: ["main", "private", "public", "large", "empty", "atCap", "soloAudience"],
  });
  const lines: string[] = [];
  try {
    // Other traffic has spent two thirds of every account's window.
    for (const key of new Set(Object.values(server.info.keys)))
      for (let i = 0; i < 200; i++)
        await fetch(`${server.info.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key}` } });
    const started = Date.now();
    const summary = await runChecks(server.info, {
      checks: allChecks,
      sentences: SENTENCE_INDEX,
      print: (l) => lines.push(l),
    });
    const text = lines.join("\n");
    // No wait of a minute for a window to open again (the CLI's budget for this run is 60 s).
    expect(Date.now() - started, text.slice(-3000)).toBeLessThan(45_000);
    expect(
      lines.filter((l) => /^\s+! found by|violation\(s\)|inconclusive/.test(l)),
      text.slice(-4000),
    ).toEqual([]);
    expect(summary.failed).toBe(0);
    // What the checks made is undone, a wait for a window or not.
    expect(text).not.toMatch(/not cleaned up/);
    // It planned to what was left, and said so.
    expect(text).toMatch(/^plan: .*spent in part before the run, left: owner \d+/m);
    expect(text).toMatch(/it had \d+ left when the run began/);
    // Not a pass when it left more than half for --deep, and it says what would make one.
    if (summary.exitCode !== 0) {
      expect(summary.exitCode).toBe(3);
      expect(text).toMatch(/spent in part before it began: run it again a minute after/);
    }
  } finally {
    await server.close();
  }
}, 300_000);
