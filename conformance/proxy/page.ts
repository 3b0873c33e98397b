/**
 * The proxy's report as one self-contained HTML page (`GET /__proxy/`, and the file written on exit): what
 * a partner reads to see how their integration behaves. Operations used and statuses met, the
 * integration checks (did the client meet a 429 and wait, a 404, did it retry writes with idempotency
 * keys), and every violation by rule with its exchange and curl. Served live, it reloads itself every few
 * seconds; the numbers are the JSON report's (each figure carries a `data-count`). It names an empty icon, so
 * that the browser's request for one is not forwarded to the upstream and counted as traffic.
 */

import { operations } from "../lib/description/contract.ts";
import { bar, CSS, card, violationRows } from "../lib/reporting/html-report.ts";
import { escapeMarkup as esc } from "../lib/reporting/markup.ts";
import type { ProxyReport } from "./judge.ts";

export function renderProxyPage(r: ProxyReport, live = true): string {
  const used = Object.keys(r.operations).length;
  const client = r.violations.filter((v) => v.who === "request" || v.who === "client");
  const server = r.violations.filter((v) => v.who === "response" || v.who === "server");
  const statuses = operations().reduce((n, o) => n + o.statuses.length, 0);
  const met = operations().reduce(
    (n, o) => n + o.statuses.filter((s) => r.operations[o.operationId]?.statuses[s]).length,
    0,
  );
  const i = r.integration;
  const rows = operations()
    .map((o) => {
      const seen = r.operations[o.operationId];
      const got = Object.entries(seen?.statuses ?? {})
        .map(([s, n]) => `${s}×${n}`)
        .join(", ");
      const documented = o.statuses.filter((s) => seen?.statuses[s]).length;
      return `<tr><td>${esc(o.operationId)}</td><td>${esc(`${o.method} ${o.path}`)}</td><td data-calls="${o.operationId}">${seen?.calls ?? 0}</td><td>${esc(got)}</td><td>${bar(documented, o.statuses.length)}</td></tr>`;
    })
    .join("");
  const unknown = Object.entries(r.unknown)
    .map(([k, n]) => `<tr><td>${esc(k)}</td><td>${n}</td></tr>`)
    .join("");
  const check = (label: string, ok: boolean | null, detail: string) =>
    `<tr><td>${esc(label)}</td><td class="${ok === null ? "skipped" : ok ? "passed" : "failed"}">${
      ok === null ? "not seen" : ok ? "yes" : "no"
    }</td><td>${esc(detail)}</td></tr>`;
  const writes = i.idempotentWrites.withKey + i.idempotentWrites.withoutKey;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Proxy report: ${esc(r.upstream)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">${live ? `<meta http-equiv="refresh" content="3">` : ""}
<style>${CSS}</style></head><body>
<header><h1>Validating proxy: how the integration behaves</h1>
<p>upstream ${esc(r.upstream)} · since ${esc(r.startedAt)}${live ? " · updates every 3 s" : ""}</p></header>
<main>
<div class="cards">
${card("exchanges", "exchanges", r.exchanges)}
${card("violations", "violations", r.violations.length, undefined, r.violations.length ? "bad" : "ok")}
${card("by the client (requests, behaviour)", "client", client.length, undefined, client.length ? "bad" : "ok")}
${card("by the upstream (answers, sequences)", "server", server.length, undefined, server.length ? "bad" : "ok")}
${card("operations used", "operations", used, operations().length)}
${card("documented statuses met", "statuses", met, statuses)}
</div>
<section><h2>Integration checks</h2><table><tr><th>question</th><th>answer</th><th>seen</th></tr>
${check("met a 429 and waited for Retry-After", i.rateLimited ? i.waitedRetryAfter > 0 && !client.some((v) => v.check === "client/retry-after") : null, `${i.rateLimited} answered 429; ${i.waitedRetryAfter} times the next request came after Retry-After`)}
${check("met a 404", i.notFound ? true : null, `${i.notFound} answered 404`)}
${check("retried writes only with idempotency keys", writes ? !client.some((v) => v.check === "client/retry-without-idempotency-key") : null, `${i.idempotentWrites.withKey} idempotent writes with a key, ${i.idempotentWrites.withoutKey} without`)}
</table></section>
<section><h2>Violations by rule</h2><table>${violationRows(r.violations)}</table></section>
<section><h2>Operations and statuses</h2><table><tr><th>operation</th><th></th><th>calls</th><th>statuses met</th><th>documented statuses met</th></tr>${rows}</table>
${unknown ? `<h2>Paths the contract does not have</h2><table>${unknown}</table>` : ""}</section>
</main></body></html>
`;
}
