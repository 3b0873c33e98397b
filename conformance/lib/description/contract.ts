/**
 * What the kit knows of the API, read from the contract of the run (src/contract/contract.ts, a value):
 * its operation table, validators with the `x-` keywords and response checks. The runner and the proxy are
 * handed that contract (the kit's own openapi.json, or another version given with `--contract`) and scope
 * what they run to it (`withContract`); nothing here is a module global another may swap, and two runs of
 * different contracts in one process each read their own. This file adds what a black-box checker needs
 * on top: the response rules every exchange must satisfy, and the catalogue of limits the contract states.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type Contract, ownContract } from "../../../src/contract/contract.ts";
import type { Limits } from "../../../src/contract/limits.ts";
import type { Operation } from "../../../src/contract/operations.ts";
import type { ValidationIssue } from "../../../src/contract/validate.ts";
import type { Exchange } from "../http/exchange.ts";
import { type Violation, violation } from "../reporting/report.ts";
import type { ContractRuleId } from "./rules.ts";

export type { Contract, Operation };

const scope = new AsyncLocalStorage<Contract>();

/** Runs `work` (and everything it awaits) against `contract`: how the runner and the proxy hand it in. */
export function withContract<T>(contract: Contract, work: () => T): T {
  return scope.run(contract, work);
}

/** The contract of the run this code is part of; outside any run, the description the kit was built from. */
export function runContract(): Contract {
  return scope.getStore() ?? ownContract;
}

export const operations = (): readonly Operation[] => runContract().operations;
export const operationsById = (): ReadonlyMap<string, Operation> => runContract().operationsById;
/** Every limit the run's contract states (its numbers are what the checks probe). */
export const limits = (): Limits => runContract().limits;
export const validate = (pointer: string, value: unknown): ValidationIssue[] =>
  runContract().validators.validate(pointer, value);

export type Schema = Record<string, unknown>;

export const isV1 = (op: Operation): boolean => op.prefixes.includes("/api/v1");
export const isAcp = (op: Operation): boolean => op.prefixes.includes("/api/acp");

export function op(id: string): Operation {
  const o = operationsById().get(id);
  if (!o) throw new Error(`the contract has no operation ${id}`);
  return o;
}

/** Follows `$ref`s (and only them) to the schema object. */
export function resolve(schema: unknown): Schema {
  return runContract().deref(schema as Schema) as Schema;
}

export function schemaAt(pointer: string): Schema {
  return resolve(runContract().resolvePointer(pointer));
}

export function bodySchema(o: Operation): Schema | null {
  return o.bodySchemaRef ? schemaAt(o.bodySchemaRef) : null;
}

/** `paths[...].responses[status]` as the rule text of a violation. */
function responseRule(o: Operation, status: number): string {
  return `openapi.json ${o.method} ${o.path} documents statuses ${o.statuses.join(", ")}; the response for ${status} is specified there`;
}

const ENVELOPE_RULE =
  "API description, Errors: every error body is JSON { statusCode (the HTTP status), statusMessage, message, url (the request path), error: true, data? }";

/**
 * Every rule a single response must satisfy on its own, whatever was asked: documented status, schema,
 * headers, Content-Type, the error envelope, rate-limit headers on v1, privacy, and never a 5xx.
 */
export function responseViolations(ex: Exchange): Violation[] {
  const ref = ex.operation;
  if (!ref) return [];
  const o = op(ref.operationId);
  const out: Violation[] = [];
  const add = (check: ContractRuleId, rule: string, message: string) =>
    out.push(violation({ check, rule, message, exchange: ex }));

  if (ex.status >= 500) {
    add(
      "response/no-5xx",
      "the API description (Errors) and docs/how-it-is-built.md (Robustness): malformed input of any kind gets a 4xx envelope, never a 5xx; 500 is an internal error",
      `answered ${ex.status}`,
    );
  }
  // Read from the exchange's own record: a web Headers made per answer costs more than the check.
  const headers = { get: (name: string) => ex.header(name) };
  for (const issue of runContract().checkResponse(o.operationId, ex.status, headers, ex.text)) {
    if (
      (issue.code === "missing-header" || issue.code === "header-schema") &&
      /ratelimit-/i.test(issue.message)
    )
      continue; // reported by the rate-limit rule below, once
    const check =
      issue.code === "undocumented-status"
        ? "response/documented-status"
        : issue.code === "content-type"
          ? "response/content-type"
          : "response/schema";
    const detail = issue.detail ? ` ${JSON.stringify(issue.detail).slice(0, 600)}` : "";
    add(check, responseRule(o, ex.status), `${issue.message}${detail}`);
  }
  const early = beforeRouting(o, ex.status);
  if (ex.status >= 400) out.push(...envelopeViolations(ex, o, early));
  if (isV1(o) && !early) out.push(...rateLimitHeaderViolations(ex));
  if (o.isPrivate && ex.status >= 200 && ex.status < 300) {
    const cc = (ex.header("cache-control") ?? "").toLowerCase();
    if (!/no-store|private|no-cache/.test(cc)) {
      add(
        "response/non-cacheable",
        "API description: responses of the Audience endpoints described as private are non-cacheable (openapi.json declares Cache-Control on them)",
        `Cache-Control is ${cc ? `"${cc}"` : "missing"}`,
      );
    }
  }
  return out;
}

/**
 * Whether the contract says the HTTP layer answers `status` before any route (the 414 and 431 responses:
 * "Answered before routing, so `url` is empty"): their answers declare no rate-limit headers, since no
 * account was counted. Read from the document, so a newer contract's own responses say it.
 */
export function beforeRouting(o: Operation, status: number): boolean {
  if (!o.statuses.includes(status)) return false;
  const contract = runContract();
  const known = earlyAnswers.get(contract) ?? new Map<string, boolean>();
  earlyAnswers.set(contract, known);
  const key = `${o.operationId} ${status}`;
  let early = known.get(key);
  if (early === undefined) {
    const path = o.path.replaceAll("~", "~0").replaceAll("/", "~1");
    const raw = contract.resolvePointer(`#/paths/${path}/${o.method.toLowerCase()}/responses/${status}`);
    const response = resolve(raw) as { headers?: Record<string, unknown>; description?: string };
    early =
      /answered before routing/i.test(response.description ?? "") && !response.headers?.["RateLimit-Limit"];
    known.set(key, early);
  }
  return early;
}

/** What `beforeRouting` read of each contract, by operation and status: it is asked for every exchange. */
const earlyAnswers = new WeakMap<Contract, Map<string, boolean>>();

export function envelopeViolations(ex: Exchange, o: Operation, early = false): Violation[] {
  const path = ex.pathname;
  const urls = [path, path + new URL(ex.url).search, ...(early ? [""] : [])];
  const problems = envelopeProblems(ex.json, ex.status, urls);
  const b = ex.json as Record<string, unknown> | undefined;
  if (isV1(o) && ex.status < 500 && typeof b?.message === "string" && b.message !== b.statusMessage)
    problems.push(
      `message ${JSON.stringify(b.message)} differs from statusMessage (same content for v1 errors)`,
    );
  return problems.map((p) =>
    violation({ check: "response/error-envelope", rule: ENVELOPE_RULE, message: p, exchange: ex }),
  );
}

/** What keeps `body` from being the error envelope of a `status` answer; `urls` are the values `url` may take. */
export function envelopeProblems(body: unknown, status: number, urls: readonly string[]): string[] {
  const problems: string[] = [];
  const b = body as Record<string, unknown> | undefined;
  if (!b || typeof b !== "object" || Array.isArray(b)) return ["the body is not a JSON object"];
  if (b.statusCode !== status) problems.push(`statusCode is ${JSON.stringify(b.statusCode)}, not ${status}`);
  if (!urls.includes(b.url as string))
    problems.push(`url is ${JSON.stringify(b.url)}, not the request path ${urls.filter(Boolean)[0] ?? '""'}`);
  if (b.error !== true) problems.push(`error is ${JSON.stringify(b.error)}, not true`);
  if (typeof b.statusMessage !== "string") problems.push("statusMessage is not a string");
  if (typeof b.message !== "string") problems.push("message is not a string");
  if (b.data !== undefined && (typeof b.data !== "object" || b.data === null || Array.isArray(b.data)))
    problems.push("data is present but not an object");
  return problems;
}

export function rateLimitHeaderViolations(ex: Exchange): Violation[] {
  const rule =
    "API description, Limits: RateLimit-Limit (current per-minute ceiling) and RateLimit-Remaining on every v1 response (openapi.json: required response headers, integers >= 0)";
  const limit = ex.header("ratelimit-limit");
  const remaining = ex.header("ratelimit-remaining");
  const problems: string[] = [];
  const isCount = (v: string) => /^\d+$/.test(v.trim());
  if (limit === null) problems.push("RateLimit-Limit is missing");
  else if (!isCount(limit)) problems.push(`RateLimit-Limit ${JSON.stringify(limit)} is not an integer >= 0`);
  if (remaining === null) problems.push("RateLimit-Remaining is missing");
  else if (!isCount(remaining))
    problems.push(`RateLimit-Remaining ${JSON.stringify(remaining)} is not an integer >= 0`);
  if (limit !== null && remaining !== null && isCount(limit) && isCount(remaining)) {
    if (Number(remaining) > Number(limit))
      problems.push(`RateLimit-Remaining ${remaining} > RateLimit-Limit ${limit}`);
  }
  return problems.map((p) =>
    violation({ check: "response/rate-limit-headers", rule, message: p, exchange: ex }),
  );
}

/** A limit the contract states, for boundary checks and the coverage report. */
export interface Limit {
  id: string;
  operationId: string;
  keyword: string;
  value: unknown;
  where: string;
}

const LIMIT_KEYWORDS = [
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "minimum",
  "maximum",
  "pattern",
  "enum",
  "const",
  "not",
  "additionalProperties",
  "propertyNames",
  "x-max-trimmed-length",
  "x-min-trimmed-length",
  "x-unique-item-properties",
  "x-max-items-before-deduplication",
  "x-ignored-beyond-length",
];

/** Every limit of every operation: body schemas, parameters and the operation-level `x-` extensions. */
export function limitCatalogue(): Limit[] {
  const out: Limit[] = [];
  for (const o of operations()) {
    const raw = runContract().resolvePointer(
      `#/paths/${o.path.replaceAll("/", "~1")}/${o.method.toLowerCase()}`,
    ) as Schema;
    for (const [k, v] of Object.entries(raw)) {
      if (k.startsWith("x-") && (typeof v === "number" || (typeof v === "object" && v !== null)))
        out.push({ id: `${o.operationId}:${k}`, operationId: o.operationId, keyword: k, value: v, where: k });
    }
    for (const p of o.parameters) walkLimits(o, resolve(p.schema), `${p.in}:${p.name}`, out, new Set());
    const body = bodySchema(o);
    if (body) walkLimits(o, body, "body", out, new Set());
  }
  return out;
}

function walkLimits(o: Operation, s: Schema, where: string, out: Limit[], seen: Set<Schema>): void {
  if (seen.has(s)) return;
  seen.add(s);
  for (const k of LIMIT_KEYWORDS) {
    if (s[k] === undefined) continue;
    if (k === "additionalProperties" && s[k] !== false) continue;
    if (k === "not" && !(s.not as Schema).enum) continue;
    out.push({
      id: `${o.operationId}:${where}:${k}`,
      operationId: o.operationId,
      keyword: k,
      value: s[k],
      where,
    });
  }
  if (s.format === "uuid")
    out.push({
      id: `${o.operationId}:${where}:format`,
      operationId: o.operationId,
      keyword: "format",
      value: "uuid",
      where,
    });
  for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
    walkLimits(o, resolve(child), `${where}.${name}`, out, seen);
  if (s.items) walkLimits(o, resolve(s.items), `${where}[]`, out, seen);
  if (s.contentSchema) walkLimits(o, resolve(s.contentSchema), where, out, seen);
  for (const k of ["anyOf", "oneOf", "allOf"]) {
    for (const branch of (s[k] ?? []) as unknown[]) walkLimits(o, resolve(branch), where, out, seen);
  }
  if (s.additionalProperties && typeof s.additionalProperties === "object")
    walkLimits(o, resolve(s.additionalProperties), `${where}.*`, out, seen);
}

/** True when `value` is a string the contract's `format: uuid` accepts. */
export function isUuid(value: string): boolean {
  return validate("#/components/parameters/AudienceId/schema", value).length === 0;
}
