/**
 * The proxy's report as JUnit XML for CI: one test case per rule the traffic was judged by, failed with
 * every violation of it; a test case per operation used, so that a clean run still says what it covered.
 */
import { escapeMarkup as xml } from "../lib/reporting/markup.ts";
import type { ProxyReport } from "./judge.ts";

export function junitOf(r: ProxyReport): string {
  const cases: string[] = [];
  for (const [rule, n] of Object.entries(r.byRule)) {
    const found = r.violations.filter((v) => (v.ruleId ?? v.check) === rule);
    const text = found.map((v) => `${v.who}: ${v.message}${v.curl ? `\n  ${v.curl}` : ""}`).join("\n");
    cases.push(
      `    <testcase classname="proxy.rules" name="${xml(rule)}"><failure message="${xml(`${n} violation(s): ${found[0]?.message ?? ""}`)}">${xml(text)}</failure></testcase>`,
    );
  }
  for (const [op, o] of Object.entries(r.operations))
    cases.push(`    <testcase classname="proxy.operations" name="${xml(`${op} (${o.calls} calls)`)}"/>`);
  const failures = Object.keys(r.byRule).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="proxy" tests="${cases.length}" failures="${failures}">\n  <testsuite name="proxy" tests="${cases.length}" failures="${failures}">\n${cases.join("\n")}\n  </testsuite>\n</testsuites>\n`;
}
