/**
 * The run as one self-contained HTML page (`--reporter html=FILE`), for a team that opens it from its CI
 * artifacts: what was found (each violation with its rule, the exchange and the curl that replays it), how
 * each check ended, and what the run reached (rules, operations, documented statuses, limits, state-machine
 * transitions) as tables and bars. No script, no external asset: the file works wherever it is opened.
 * The numbers are the JSON reports' (each summary figure carries a `data-count` a test reads back).
 */

import { RULES, type RuleId } from "../description/rules.ts";
import type { CoverageReport } from "./coverage.ts";
import { escapeMarkup as esc } from "./markup.ts";
import type { Violation } from "./report.ts";

export interface HtmlReportInput {
  target: string;
  kind: string;
  seed: number;
  finishedAt: string;
  checks: {
    name: string;
    title: string;
    status: "passed" | "failed" | "skipped";
    ms: number;
    /** Requests sent, per key. */
    requests?: Record<string, number>;
    skipped?: string;
    error?: string;
  }[];
  violations: readonly Violation[];
  /** What the checks met and could not judge either way. */
  inconclusive?: readonly { check: string; what: string }[];
  coverage: CoverageReport;
}

export const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0 0 4px;font-size:20px}
header p{margin:0;color:#c9d1e0}main{padding:20px 28px;max-width:1200px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:0 0 20px}
.card{background:#fff;border-radius:8px;padding:12px 16px;min-width:140px;box-shadow:0 1px 2px #0002}
.card b{display:block;font-size:22px}.card span{color:#5b6477;font-size:12px}
.bad b{color:#b42318}.ok b{color:#067647}
section{background:#fff;border-radius:8px;padding:14px 18px;margin:0 0 18px;box-shadow:0 1px 2px #0002}
h2{font-size:16px;margin:0 0 10px}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e6e8ec;vertical-align:top}
th{font-size:12px;color:#5b6477;font-weight:600}
.bar{background:#e6e8ec;border-radius:4px;height:10px;width:180px;display:inline-block;vertical-align:middle}
.bar i{display:block;height:100%;background:#2e90fa;border-radius:4px}
.failed{color:#b42318;font-weight:600}.passed{color:#067647}.skipped{color:#8a6d00}
pre{background:#f2f4f7;padding:8px;border-radius:6px;white-space:pre-wrap;word-break:break-all;margin:4px 0;font-size:12px}
details summary{cursor:pointer}.muted{color:#5b6477}
`;

export function bar(done: number, total: number): string {
  const pct = total === 0 ? 100 : Math.round((done / total) * 100);
  return `<span class="bar" title="${pct}%"><i style="width:${pct}%"></i></span> ${done}/${total} (${pct}%)`;
}

export function card(label: string, id: string, value: number, of?: number, tone = ""): string {
  const shown = of === undefined ? `${value}` : `${value}/${of}`;
  return `<div class="card ${tone}"><b data-count="${id}" data-value="${value}">${shown}</b><span>${esc(label)}</span></div>`;
}

export function violationRows(violations: readonly Violation[]): string {
  if (violations.length === 0) return `<p class="passed">No violation.</p>`;
  const byRule = new Map<string, Violation[]>();
  for (const v of violations) byRule.set(v.rule, [...(byRule.get(v.rule) ?? []), v]);
  return [...byRule]
    .map(([rule, list]) => {
      const items = list
        .map((v) => {
          const req = v.request ? `${v.request.method} ${v.request.url}` : "";
          const res = v.response ? `${v.response.status}\n${v.response.body.slice(0, 1500)}` : "";
          return `<tr data-violation><td>${esc(v.check)}</td><td>${esc(v.message)}${
            v.sequence
              ? `<details><summary>sequence (${v.sequence.steps.length} steps)</summary><pre>${esc(v.sequence.steps.join("\n"))}</pre></details>`
              : ""
          }</td><td>${req ? `<pre>${esc(req)}</pre>` : ""}${res ? `<details><summary>response ${v.response?.status}</summary><pre>${esc(res)}</pre></details>` : ""}${
            v.curl ? `<details><summary>curl</summary><pre>${esc(v.curl)}</pre></details>` : ""
          }</td></tr>`;
        })
        .join("");
      return `<tr><th colspan="3">${esc(rule)} <span class="muted">(${list.length})</span></th></tr>${items}`;
    })
    .join("");
}

/** What the checks met and could not judge either way: never a pass, so always shown. */
function inconclusiveSection(items: readonly { check: string; what: string }[]): string {
  if (items.length === 0) return "";
  const rows = items.map((i) => `<tr><td>${esc(i.check)}</td><td>${esc(i.what)}</td></tr>`).join("");
  return `<section><h2>Inconclusive (not judged either way; --strict fails on them)</h2><table><tr><th>check</th><th>what could not be judged</th></tr>${rows}</table></section>`;
}

/** The cases this target could not have, grouped by why. */
function casesLeft(c: CoverageReport): string {
  const left = c.cases?.left ?? [];
  if (left.length === 0) return "";
  const byWhy = new Map<string, string[]>();
  for (const l of left) byWhy.set(l.why, [...(byWhy.get(l.why) ?? []), l.id]);
  const rows = [...byWhy]
    .map(
      ([why, ids]) =>
        `<tr><td>${esc(why)}</td><td>${ids.length}</td><td class="muted">${esc(ids.slice(0, 5).join("; "))}${ids.length > 5 ? " …" : ""}</td></tr>`,
    )
    .join("");
  return `<h2>Cases left (and why)</h2><table><tr><th>why</th><th>cases</th><th>for instance</th></tr>${rows}</table>`;
}

/**
 * Every sentence of openapi.json, one row each: where it stands, and the rules, checks and self-test faults
 * that judge it (or why nothing can), so that a sentence is one look-up from its proof.
 */
function sentenceTable(c: CoverageReport): string {
  const each = c.sentences.each ?? [];
  if (each.length === 0) return "";
  const list = (xs: readonly string[]) => esc(xs.join(", "));
  const rows = each
    .map((s) => {
      const where = s.pointers[0] ?? "";
      const more = s.pointers.length > 1 ? ` (+${s.pointers.length - 1})` : "";
      const judged = s.code === "judged";
      const mark = judged ? (s.reached ? "reached" : "not reached") : s.code;
      const by = judged
        ? `${list(s.rules)}<br><span class="muted">${list(s.checks)}</span>`
        : esc(s.why ?? "");
      return `<tr data-pointer="${esc(where)}"><td>${esc(s.text)}<br><code class="muted">${esc(where)}${more}</code></td><td class="${judged ? (s.reached ? "passed" : "failed") : "skipped"}">${esc(mark)}</td><td>${by}</td><td class="muted">${list(s.faults)}</td></tr>`;
    })
    .join("");
  return `<details id="sentences"><summary><h2>Every sentence of openapi.json (${each.length}): its pointer, rules, checks and faults</h2></summary><table><tr><th>sentence, and where it stands</th><th>this run</th><th>rules, and the checks that judge them (or why nothing can)</th><th>self-test faults</th></tr>${rows}</table></details>`;
}

export function renderHtmlReport(r: HtmlReportInput): string {
  const c = r.coverage;
  const count = (s: string) => r.checks.filter((x) => x.status === s).length;
  const checks = r.checks
    .map(
      (x) =>
        `<tr><td>${esc(x.name)}</td><td>${esc(x.title)}</td><td class="${x.status}">${x.status}</td><td>${x.ms} ms</td><td>${Object.values(x.requests ?? {}).reduce((a, b) => a + b, 0)}</td><td class="muted">${esc(x.skipped ?? x.error ?? "")}</td></tr>`,
    )
    .join("");
  const statuses = Object.entries(c.statuses.byOperation)
    .map(([op, s]) => {
      const seen = s.documented.filter((d) => s.seen.includes(d));
      return `<tr><td>${esc(op)}</td><td>${bar(seen.length, s.documented.length)}</td><td class="muted">${s.documented
        .map((d) => (s.seen.includes(d) ? `${d}` : `<s>${d}</s>`))
        .join(" ")}</td></tr>`;
    })
    .join("");
  const machines = Object.entries(c.transitions)
    .map(
      ([m, t]) =>
        `<tr><td>${esc(m)}</td><td>${bar(t.seen.length, t.seen.length + t.missing.length)}</td><td class="muted">${t.missing.length ? `not seen: ${esc(t.missing.join(", "))}` : "all seen"}</td></tr>`,
    )
    .join("");
  const reasonsOf = (cov: CoverageReport) =>
    Object.entries(cov.sentences.reasons)
      .map(([code, n]) => `${code} ${n}`)
      .join(", ");
  const missingRules = c.rules.missing
    .map((id) => `<li><b>${esc(id)}</b>: ${esc(String(RULES[id as RuleId]?.[1] ?? ""))}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report: ${esc(r.target)}</title><style>${CSS}</style></head>
<body><header><h1>Conformance report</h1><p>${esc(r.target)} (${esc(r.kind)}), seed ${r.seed}, finished ${esc(r.finishedAt)}</p></header>
<main>
<div class="cards">
${card("checks passed", "passed", count("passed"), r.checks.length, "ok")}
${card("checks failed", "failed", count("failed"), undefined, count("failed") ? "bad" : "ok")}
${card("checks skipped", "skipped", count("skipped"))}
${card("violations", "violations", r.violations.length, undefined, r.violations.length ? "bad" : "ok")}
${card("description rules reached", "rules", c.rules.reached.length, c.rules.total)}
${card("contract sentences judged", "sentences", c.sentences.reached, c.sentences.judged)}
${card("rule cases judged", "cases", c.cases?.judged ?? 0, c.cases?.total ?? 0)}
${card("inconclusive", "inconclusive", r.inconclusive?.length ?? 0, undefined, r.inconclusive?.length ? "bad" : "ok")}
${card("operations", "operations", c.operations.exercised, c.operations.total)}
${card("documented statuses", "statuses", c.statuses.exercised, c.statuses.documented)}
${card("contract limits", "limits", c.limits.exercised, c.limits.total)}
</div>
<section><h2>Violations</h2><table><tr><th>check</th><th>what was observed</th><th>exchange</th></tr>${violationRows(r.violations)}</table></section>
${inconclusiveSection(r.inconclusive ?? [])}
<section><h2>Checks</h2><table><tr><th>check</th><th>what it checks</th><th>result</th><th>time</th><th>requests</th><th>note</th></tr>${checks}</table></section>
<section><h2>Coverage</h2><table>
<tr><td>description rules</td><td>${bar(c.rules.reached.length, c.rules.total)}</td></tr>
<tr><td>contract sentences judged (${c.sentences.total - c.sentences.judged} more state no checkable rule: ${esc(reasonsOf(c))})</td><td>${bar(c.sentences.reached, c.sentences.judged)}</td></tr>
<tr><td>rule cases judged (each one request in a world it makes, every answer the description allows)</td><td>${bar(c.cases?.judged ?? 0, c.cases?.total ?? 0)}</td></tr>
<tr><td>operations</td><td>${bar(c.operations.exercised, c.operations.total)}</td></tr>
<tr><td>documented statuses</td><td>${bar(c.statuses.exercised, c.statuses.documented)}</td></tr>
<tr><td>contract limits</td><td>${bar(c.limits.exercised, c.limits.total)}</td></tr></table>
${missingRules ? `<h2>Rules not reached</h2><ul>${missingRules}</ul>` : ""}
${casesLeft(c)}
${sentenceTable(c)}
<h2>State machines (transitions seen)</h2><table>${machines}</table>
<h2>Statuses by operation (struck: documented, not seen)</h2><table>${statuses}</table></section>
</main></body></html>
`;
}
