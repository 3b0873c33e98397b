/**
 * The cases in a quick deployment run: one rate-limit window per account, so they take turns by rule and
 * stop where an account's window is down to the share kept for the checks after them; what they leave is
 * said, case by case, never passed; and nothing waits for a window to open again.
 */
import { afterAll, describe, expect, it } from "vitest";
import { CASE_GROUPS } from "../cases/index.ts";
import { byRuleInTurn, caseCheck } from "../cases/run.ts";
import { Coverage } from "../lib/reporting/coverage.ts";
import { runCheck } from "../lib/running/context.ts";
import { deploymentServer } from "./harness.ts";

describe("cases in a quick deployment run", async () => {
  const server = await deploymentServer(null, "host", { rateLimitPerMinute: 60, deep: false });
  afterAll(() => server.close());

  it("take turns by rule: every rule's first case before any rule's second", () => {
    const cases = CASE_GROUPS.audiences ?? [];
    const ordered = byRuleInTurn(cases);
    expect(new Set(ordered)).toEqual(new Set(cases));
    const rules = [...new Set(cases.map((c) => c.rule))];
    expect(
      ordered
        .slice(0, rules.length)
        .map((c) => c.rule)
        .sort(),
    ).toEqual([...rules].sort());
  });

  it("stop at the share of the window kept for later checks, and say what they left", async () => {
    expect(server.info.quick).toBe(true);
    const coverage = new Coverage();
    const partial: string[] = [];
    const started = Date.now();
    const def = caseCheck("cases/audiences", CASE_GROUPS.audiences ?? []);
    const found = await runCheck(def, server.info, coverage, { onPartial: (w) => partial.push(...w) });
    expect(found).toEqual([]);
    const outcomes = Object.values(coverage.fragment().cases ?? {});
    const left = outcomes.filter((o) => o.state === "left" && o.why.startsWith("left for --deep"));
    expect(left.length).toBeGreaterThan(0);
    expect(outcomes.some((o) => o.state === "judged")).toBe(true);
    expect(partial.join(" ")).toMatch(/cases left for --deep \(a quick run's window\)/);
    // Nothing waited for a window (a minute) to open again.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
