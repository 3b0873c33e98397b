/**
 * The README's table of the proxy's rules is the one the code keeps (proxy/rule-table.ts), row for row,
 * and a rule the proxy's own answer rules judge is marked judged there.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ANSWER_RULES } from "../proxy/answers.ts";
import { PROXY_RULES, proxyRuleRows } from "../proxy/rule-table.ts";

const README = readFileSync(join(import.meta.dirname, "../../docs/proxy.md"), "utf8");

it("the README lists every catalogue rule as the proxy judges it", () => {
  expect(proxyRuleRows().filter((row) => !README.includes(row))).toEqual([]);
});

it("marks judged every rule the proxy's answer rules judge", () => {
  expect(ANSWER_RULES.filter((r) => !("judged" in PROXY_RULES[r]))).toEqual([]);
});
