/**
 * Updates `conformance/lib/planning/costs.json`, the requests each check spends per account in a quick run (the
 * planner of quick runs orders and fits checks by it), from the JSON report of a quick run against a
 * simulator whose rate limit is lifted, so that nothing is left out for the budget:
 *
 *   npx tsx src/cli/main.ts --clock real --rate-limit 100000 --control-token T --port 4701 &
 *   # a config for it, as for a deployment, with "rateLimitPerMinute": 100000
 *   npm run conformance -- --config free.json --json reports/free.json
 *   npx tsx scripts/kit-costs.ts reports/free.json
 *
 * Requests sent without a key (`none`) cost no account anything and are left out.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { accountOf } from "../conformance/lib/http/http.ts";

const [file] = process.argv.slice(2);
if (!file) {
  console.error("usage: npx tsx scripts/kit-costs.ts REPORT.json");
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, "utf8")) as {
  checks: { name: string; status: string; requests: Record<string, number> }[];
};
const out = new URL("../conformance/lib/planning/costs.json", import.meta.url);
// Checks the report did not run keep their last measure.
const costs = JSON.parse(readFileSync(out, "utf8")) as Record<string, Record<string, number>>;
for (const c of report.checks) {
  if (c.status === "skipped") continue;
  const byAccount: Record<string, number> = {};
  for (const [label, n] of Object.entries(c.requests)) {
    if (label === "none") continue;
    byAccount[accountOf(label)] = (byAccount[accountOf(label)] ?? 0) + n;
  }
  costs[c.name] = byAccount;
}
writeFileSync(out, `${JSON.stringify(costs, null, 2)}\n`);
const measured = report.checks.filter((c) => c.status !== "skipped").length;
console.log(
  `${measured} checks measured → conformance/lib/planning/costs.json (${Object.keys(costs).length} in all)`,
);
