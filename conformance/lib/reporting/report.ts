/**
 * Violations: what a check found, in a form a person can act on (the rule, the exchange, how to replay it)
 * and a machine can collect (`reports/conformance-violations.json`).
 */
import type { AnyRuleId, ContractRuleId } from "../description/rules.ts";
import type { Exchange } from "../http/exchange.ts";

export interface Violation {
  /** The check that found it, e.g. `generic/auth-401`, or the response rule (`response/schema`). */
  check: string;
  /**
   * For a response rule: the kit's check whose request met it, which `--only` selects to replay it (a
   * response rule is judged on every answer, and is no check of its own).
   */
  foundBy?: string;
  operation: { operationId: string; method: string; path: string } | null;
  /** The contract rule, quoted from openapi.json or the API description. */
  rule: string;
  /** The rule's ID: the catalogue's (`keys/delete-immediate`, lib/description/rules.ts), or a rule of the contract's own text (`response/schema`). */
  ruleId?: AnyRuleId;
  /** What was observed, in one or two sentences. */
  message: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string } | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  /** The run's seed (`--seed`), and for properties the property's own seed and counterexample path. */
  seed?: number;
  propertySeed?: number;
  path?: string;
  curl: string | null;
  /** For a model run: the shrunk sequence of steps, the file that replays it, and its requests as curl lines. */
  sequence?: {
    steps: string[];
    replayFile: string | null;
    script: string[];
    shrunk: boolean;
    /** Why shrinking stopped before it had tried every candidate (its budget), when it did. */
    cut?: string;
  };
}

interface ViolationBase {
  rule: string;
  message: string;
  exchange?: Exchange | null;
  operation?: { operationId: string; method: string; path: string } | null;
}

/** A violation found by a check under a rule of either kind, or by a contract rule's own check (its ID). */
export type ViolationInput =
  | (ViolationBase & { check: string; ruleId: AnyRuleId })
  | (ViolationBase & { check: ContractRuleId; ruleId?: undefined });

const EXCERPT = 2_000;

/** Raw API keys never leave the kit: in bodies, headers and curl commands they become a placeholder. */
export function redactSecrets(text: string): string {
  return text.replace(/service_[A-Za-z0-9_-]{6,}/g, "service_<redacted>");
}

export function excerpt(text: string, max = EXCERPT): string {
  const clean = redactSecrets(text);
  return clean.length <= max ? clean : `${clean.slice(0, max)}… (${clean.length} characters in all)`;
}

export function violation(input: ViolationInput): Violation {
  const ex = input.exchange ?? null;
  return {
    check: input.check,
    operation: input.operation ?? ex?.operation ?? null,
    rule: input.rule,
    ruleId: input.ruleId ?? input.check,
    message: redactSecrets(input.message),
    request: ex
      ? {
          method: ex.method,
          url: ex.url,
          headers: ex.requestHeaders,
          body: ex.requestBodyText === null ? "" : excerpt(ex.requestBodyText),
        }
      : null,
    response: ex
      ? { status: ex.status, headers: redactHeaders(ex.responseHeaders), body: excerpt(ex.text) }
      : null,
    curl: ex ? curlFor(ex) : null,
  };
}

function redactHeaders(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, redactSecrets(v)]));
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/**
 * A curl command that repeats the exchange. The key is an environment variable named after the role
 * (`$KEY_OWNER`), so the command can be shared; bodies too long for a command line are referenced as a
 * file the report writer saves next to the report.
 */
export function curlFor(ex: Exchange): string {
  const parts = ["curl", "-i", "-X", ex.method];
  for (const [name, value] of Object.entries(ex.requestHeaders)) {
    if (name === "authorization" && ex.keyLabel) {
      parts.push("-H", `"authorization: Bearer \${KEY_${ex.keyLabel.toUpperCase()}}"`);
    } else parts.push("-H", shellQuote(`${name}: ${redactSecrets(value)}`));
  }
  if (ex.requestBodyText !== null) {
    if (ex.requestBodyText.length <= 2_000) parts.push("--data-binary", shellQuote(ex.requestBodyText));
    else parts.push("--data-binary", `@${ex.bodyFileName()}`);
  }
  parts.push(shellQuote(ex.url));
  return parts.join(" ");
}

/** The human form, used as the assertion message of a failing vitest test. */
export function formatViolation(v: Violation, index: number): string {
  const lines = [`#${index + 1} [${v.check}] ${v.message}`];
  if (v.operation)
    lines.push(`  operation: ${v.operation.operationId} (${v.operation.method} ${v.operation.path})`);
  lines.push(`  rule: ${v.rule}`);
  if (v.request) {
    lines.push(`  request: ${v.request.method} ${v.request.url}`);
    if (v.request.body) lines.push(`    body: ${oneLine(v.request.body, 300)}`);
  }
  if (v.response) {
    const ct = v.response.headers["content-type"] ?? "(no content-type)";
    lines.push(`  response: ${v.response.status} ${ct}`);
    if (v.response.body) lines.push(`    body: ${oneLine(v.response.body, 400)}`);
  }
  if (v.seed !== undefined) {
    const prop =
      v.propertySeed !== undefined
        ? `; fast-check seed ${v.propertySeed}, path ${JSON.stringify(v.path ?? "")}`
        : "";
    lines.push(`  replay: --seed ${v.seed} --only '^${v.foundBy ?? v.check}:'${prop}`);
  }
  if (v.sequence) {
    lines.push(`  sequence (${v.sequence.steps.length} steps${v.sequence.shrunk ? ", shrunk" : ""}):`);
    if (v.sequence.cut) lines.push(`  (${v.sequence.cut})`);
    for (const [i, step] of v.sequence.steps.entries()) lines.push(`    ${i + 1}. ${step}`);
    if (v.sequence.replayFile) lines.push(`  replay the sequence: --replay ${v.sequence.replayFile}`);
  }
  if (v.curl) lines.push(`  curl: ${v.curl.length > 600 ? `${v.curl.slice(0, 600)}…` : v.curl}`);
  return lines.join("\n");
}

export function formatViolations(vs: readonly Violation[]): string {
  const shown = vs.slice(0, 20).map(formatViolation);
  const more = vs.length > 20 ? [`… and ${vs.length - 20} more in reports/conformance-violations.json`] : [];
  return [`${vs.length} contract violation(s):`, ...shown, ...more].join("\n\n");
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Same finding twice (say one 5xx seen by two checks) is reported once. */
export function dedupe(vs: readonly Violation[]): Violation[] {
  const seen = new Set<string>();
  return vs.filter((v) => {
    const key = `${v.check}|${v.operation?.operationId}|${v.message}|${v.request?.url}|${v.request?.method}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
