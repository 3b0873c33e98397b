/** JUnit's times: checks that ran side by side count once in their suite's and the run's time. */
import { expect, it } from "vitest";
import { junit } from "../lib/running/runner.ts";

const outcome = (name: string, startedAt: number, ms: number) =>
  ({
    def: { name, title: name, rules: [] },
    ms,
    startedAt,
    requests: {},
    violations: [],
    skipped: null,
    error: null,
  }) as never;

it("counts the time of checks that overlapped once", () => {
  // a: 0–10 s; b: 2–12 s beside it; c: 20–21 s after both. Together 13 s, not 21.
  const xml = junit([
    outcome("domain/a", 0, 10_000),
    outcome("domain/b", 2_000, 10_000),
    outcome("cases/c", 20_000, 1_000),
  ]);
  expect(xml).toMatch(/<testsuites name="conformance" tests="3" failures="0" skipped="0" time="13.000">/);
  expect(xml).toMatch(/<testsuite name="domain" tests="2" failures="0" skipped="0" time="12.000">/);
  expect(xml).toMatch(/<testsuite name="cases" tests="1" failures="0" skipped="0" time="1.000">/);
  expect(xml).toMatch(
    /<testcase classname="conformance.domain" name="domain\/b: domain\/b" time="10.000"\/>/,
  );
});
