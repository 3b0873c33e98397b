/** Every rule of the catalogue is covered by a check, and every check names only rules that exist. */
import { expect, it } from "vitest";
import { allChecks } from "../checks/index.ts";
import { RULES, type RuleId, ruleSection } from "../lib/description/rules.ts";

it("every rule of the description's catalogue has a check", () => {
  const covered = new Set(allChecks.flatMap((c) => c.rules));
  expect(Object.keys(RULES).filter((r) => !covered.has(r as keyof typeof RULES))).toEqual([]);
});

it("every check covers at least one rule", () => {
  expect(allChecks.filter((c) => c.rules.length === 0).map((c) => c.name)).toEqual([]);
});

it("names for every rule the section of the description that states it", () => {
  const ids = Object.keys(RULES) as RuleId[];
  expect(ids.filter((r) => !ruleSection(r))).toEqual([]);
});
