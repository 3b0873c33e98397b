/**
 * The validating proxy's options and the answers it makes itself: its own pages under `/__proxy/` (the HTML
 * report, `report` as JSON, `report.xml` as JUnit), and bodies in the API's error envelope for what it
 * refuses (an unreachable upstream, with `errors` an exchange that breaks a counted rule). It forwards
 * through its own node:http host (host.ts).
 */

import type { Contract } from "../../src/contract/contract.ts";
import type { Finding, Judge } from "./judge.ts";
import { junitOf } from "./junit.ts";
import { renderProxyPage } from "./page.ts";

export interface ProxyOptions {
  upstream: string;
  /** The contract exchanges are judged against (src/contract/contract.ts); default: the kit's own. */
  contract?: Contract;
  /** Answer an exchange that breaks a rule with a 502 naming it, instead of passing the answer on. */
  errors?: boolean;
  /** Whose findings count (the exit status, and what `errors` turns into 502): default both sides. */
  failOn?: FailOn;
  /** Told every finding as it is made (the terminal log). */
  onFinding?: (f: Finding) => void;
  /** Record the world the traffic shows (record.ts), for a scenario document. */
  record?: boolean;
  /** Told when an exchange could not be judged (a fault of the proxy, not of the traffic). */
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** `--fail-on`: the upstream's findings, the client's, or any. */
export type FailOn = "upstream" | "client" | "any";

/** Whether a finding counts under `failOn`. */
export function counts(failOn: FailOn, f: Finding): boolean {
  return failOn === "any" || f.side === failOn;
}

export interface OwnAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The proxy's own pages. */
export function ownPage(path: string, judge: Judge): OwnAnswer {
  const noStore = { "cache-control": "no-store" };
  if (path === "/__proxy/report")
    return {
      status: 200,
      headers: { "content-type": "application/json", ...noStore },
      body: JSON.stringify(judge.report),
    };
  if (path === "/__proxy/report.xml")
    return {
      status: 200,
      headers: { "content-type": "application/xml", ...noStore },
      body: junitOf(judge.report),
    };
  if (path === "/__proxy" || path === "/__proxy/")
    return {
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8", ...noStore },
      body: renderProxyPage(judge.report),
    };
  return {
    status: 404,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: envelopeBody(404, "Not Found", path, {
      message: "The proxy serves /__proxy/, /__proxy/report and /__proxy/report.xml",
    }),
  };
}

/** An error body in the API's envelope. */
export function envelopeBody(
  status: number,
  statusMessage: string,
  url: string,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    statusCode: status,
    statusMessage,
    message: statusMessage,
    url,
    error: true,
    ...extra,
  });
}

/** `errors`: what the client gets instead of an exchange that breaks a counted rule. */
export function violationBody(path: string, broken: Finding[]): string {
  const whose = broken[0]?.side === "client" ? "The request" : "The upstream's answer";
  return envelopeBody(502, "Bad Gateway", path, {
    message: `${whose} breaks the contract: ${broken[0]?.ruleId ?? broken[0]?.check}: ${broken[0]?.message}`,
    data: {
      code: "CONTRACT_VIOLATION",
      violations: broken.map((f) => ({ ruleId: f.ruleId, check: f.check, side: f.side, message: f.message })),
    },
  });
}
