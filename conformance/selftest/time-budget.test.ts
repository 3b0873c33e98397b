/**
 * Every run ends within its time budget, whatever the target does: a machine that never finishes (its
 * deadline longer than the budget), a target that answers slowly, one that finds a fault. It ends with exit
 * 2 (nothing found, something cut short or not started) or 1 (something found), says so, and keeps what it
 * checked. The budget here is short; the same holds for the CLI's default (60 s for a quick deployment run).
 */

import { expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import { SENTENCE_INDEX } from "../index/index.ts";
import { runChecks } from "../lib/running/runner.ts";
import { FAULTS } from "./faults.ts";
import { deploymentServer, type Fault } from "./harness.ts";
import { answersLate, buildsNeverFinish, stopsAfter } from "./misbehaving.ts";
import { scratchReports } from "./reports-dir.ts";

scratchReports("kit-budget-");

const BUDGET_MS = 8_000;
/** The run ends within its budget (the grace and the reports' writing are inside it); a little for noise. */
const WITHIN_MS = BUDGET_MS + 1_000;

const faultNamed = (name: string): Fault => {
  const f = FAULTS.find((x) => x.name === name);
  if (!f) throw new Error(`no fault ${name}`);
  return f.fault;
};

async function runWithin(fault: Fault | null, deadlines: boolean, budgetMs = BUDGET_MS) {
  const server = await deploymentServer(fault, "host", { speed: 1, deep: true });
  // The team's service levels, as a config left silent states them: longer than the budget.
  const info = deadlines
    ? server.info
    : {
        ...server.info,
        deadlines: { formationBuild: 120_000, export: 120_000, recalibration: 300_000, research: 600_000 },
      };
  const lines: string[] = [];
  const started = Date.now();
  try {
    const summary = await runChecks(info, {
      sentences: SENTENCE_INDEX,
      checks: allChecks,
      budget: { ms: budgetMs },
      print: (l) => lines.push(l),
    });
    return { summary, ms: Date.now() - started, text: lines.join("\n") };
  } finally {
    await server.close();
  }
}

it("ends within its budget with exit 2 when a machine never finishes and its deadline is past the budget", async () => {
  const r = await runWithin(buildsNeverFinish, false);
  expect(r.ms).toBeLessThan(WITHIN_MS);
  expect(r.summary.exitCode, r.text.slice(-3000)).toBe(2);
  expect(r.text).toMatch(/stopped: the run's time budget \(8 s, --time-budget\) ran out/);
}, 60_000);

it("ends within its budget against a target that answers every request late", async () => {
  const r = await runWithin(answersLate(3_000), true);
  expect(r.ms).toBeLessThan(WITHIN_MS);
  expect([1, 2]).toContain(r.summary.exitCode);
  expect(r.text).toMatch(/stopped: the run's time budget/);
}, 60_000);

it("stops with exit 2 within seconds of the target's going silent, long before its budget ends", async () => {
  // Silent from 3 s on: its requests are noticed unanswered after 5 s, and the target asked for 5 s more.
  const r = await runWithin(stopsAfter(3_000), true, 60_000);
  expect(r.ms).toBeLessThan(20_000);
  expect(r.summary.exitCode, r.text.slice(-3000)).toBe(2);
  expect(r.text).toMatch(/stopped: the target stopped answering during .* had no answer after 5 s/);
  // The checks it went away under are stopped, not failed: its silence is no verdict on them.
  expect(r.summary.failed, r.text.slice(-3000)).toBe(0);
}, 60_000);

it("ends within its budget with exit 1 when it found a fault", async () => {
  const r = await runWithin(faultNamed("GET /auth/me names another user"), true);
  expect(r.ms).toBeLessThan(WITHIN_MS);
  expect(r.summary.exitCode, r.text.slice(-3000)).toBe(1);
  expect(r.summary.failed).toBeGreaterThan(0);
}, 60_000);
