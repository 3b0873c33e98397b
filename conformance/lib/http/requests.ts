/**
 * The rules a request must satisfy on its own: the client's half of an exchange, from openapi.json (path,
 * parameters, key, Content-Type, body schema and size). The kit makes its own requests and needs none of
 * this; the validating proxy judges a client's requests with it, beside the response rules (contract.ts)
 * it shares with the kit.
 */

import { operationsById, validate } from "../description/contract.ts";
import { type ContractRuleId, RULES, type RuleId } from "../description/rules.ts";
import { type Violation, violation } from "../reporting/report.ts";
import { ruleText } from "../running/context.ts";
import type { Exchange, OperationRef } from "./http.ts";
import { matchPath } from "./match.ts";

export type Match =
  | { kind: "found"; operation: OperationRef; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/** The contract's operation a request names, if any. */
export function matchOperation(method: string, pathname: string): Match {
  const m = matchPath(method, pathname);
  if (m.kind === "found")
    return {
      kind: "found",
      operation: { operationId: m.op.operationId, method: m.op.method, path: m.op.path },
      params: m.params,
    };
  if (m.kind === "method-not-allowed") return { kind: "method-not-allowed", allowed: m.allowed };
  return { kind: "not-found" };
}

/**
 * What is wrong with the request of `ex` by the contract alone (nothing, for a well-formed one); `m` is
 * its match, when the caller has it already.
 */
export function requestViolations(ex: Exchange, m?: Match): Violation[] {
  const out: Violation[] = [];
  const url = new URL(ex.url);
  // A catalogue rule is quoted with its line and section; a contract rule as written.
  const add = (check: ContractRuleId, rule: RuleId | (string & {}), message: string) =>
    out.push(
      violation({
        check,
        rule: ruleText(rule),
        ruleId: Object.hasOwn(RULES, rule) ? (rule as RuleId) : check,
        message,
        exchange: ex,
      }),
    );
  m ??= matchOperation(ex.method, url.pathname);
  if (m.kind === "not-found") {
    add(
      "request/unknown-path",
      "openapi.json: the paths the contract serves",
      `sent ${ex.method} ${url.pathname}, which no operation of the contract serves`,
    );
    return out;
  }
  if (m.kind === "method-not-allowed") {
    add(
      "request/wrong-method",
      "http/wrong-method",
      `sent ${ex.method} to ${url.pathname}, which serves ${m.allowed.join(", ")}`,
    );
    return out;
  }
  const op = operationsById().get(m.operation.operationId);
  if (!op) return out;
  // A key the recorder redacted is named by its label.
  const auth = ex.requestHeaders.authorization;
  if (op.authenticated && ex.keyLabel === null && !(auth && /^Bearer \S+$/.test(auth)))
    add(
      "request/no-key",
      "auth/401",
      `sent no API key; ${op.operationId} needs \`Authorization: Bearer service_…\``,
    );
  // The exchange's header names are in lower case already: a lookup, not a Headers built per request.
  const headers = { get: (name: string) => ex.requestHeaders[name.toLowerCase()] ?? null };
  for (const p of op.parameters) {
    if (p.in === "path") {
      const v = m.params[p.name] ?? "";
      if (validate(p.schemaRef, v).length > 0)
        add(
          "request/path-parameter",
          "ids/malformed-400",
          `sent the path parameter ${p.name}=${JSON.stringify(v)}, which is not of its schema`,
        );
      continue;
    }
    const raw =
      p.in === "query" ? url.searchParams.get(p.name) : p.in === "header" ? headers.get(p.name) : null;
    if (raw === null) {
      if (p.required)
        add(
          "request/parameter",
          "input/invalid-400",
          `sent no ${p.in} parameter ${p.name}; ${op.operationId} requires it`,
        );
      continue;
    }
    if (validate(p.schemaRef, parameterValue(raw, p.schema)).length > 0)
      add(
        "request/parameter",
        "input/invalid-400",
        `sent the ${p.in} parameter ${p.name}=${JSON.stringify(raw)}, which is not of its schema`,
      );
    else {
      const content = contentProblem(raw, p.schema);
      if (content)
        add("request/parameter", "input/invalid-400", `sent the ${p.in} parameter ${p.name}: ${content}`);
    }
  }
  const body = ex.requestBodyText;
  const hasBody = body !== null && body !== "";
  if (!op.bodySchemaRef) return out;
  if (!hasBody) {
    if (op.bodyRequired)
      add("request/body", "input/invalid-400", `sent no body; ${op.operationId} needs a JSON body`);
    return out;
  }
  const size = Buffer.byteLength(body);
  if (op.maxBodyBytes !== null && size > op.maxBodyBytes)
    add(
      "request/body-size",
      "input/body-size-413",
      `sent a body of ${size} bytes, past the ${op.maxBodyBytes} ${op.operationId} takes`,
    );
  const type = headers.get("content-type");
  if (!isJsonMediaType(type))
    add(
      "request/content-type",
      "input/media-type-415",
      `sent a body as ${type ?? "no Content-Type"}, not application/json`,
    );
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    add("request/body", "input/invalid-400", "sent a body that is not JSON");
    return out;
  }
  const issues = validate(op.bodySchemaRef, json);
  if (issues.length > 0)
    add(
      "request/body",
      "input/invalid-400",
      `sent a body that is not of ${op.bodySchemaRef.split("/").at(-1)}: ${issues
        .slice(0, 3)
        .map((i) => `${i.path || "(root)"} ${i.message}`)
        .join("; ")}`,
    );
  return out;
}

/**
 * A string parameter whose content the contract types (`contentMediaType: application/json` and a
 * `contentSchema`, as `filters`): its text must be JSON of that schema. JSON Schema only annotates content,
 * so the validator passes any string; this says what is wrong with it.
 */
function contentProblem(raw: string, schema: unknown): string | null {
  const s = schema as { contentMediaType?: string; contentSchema?: { $ref?: string } } | undefined;
  if (s?.contentMediaType !== "application/json") return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return `${JSON.stringify(raw.slice(0, 80))} is not JSON, which its contentMediaType is`;
  }
  const ref = s.contentSchema?.$ref;
  if (ref === undefined) return null;
  const issues = validate(ref, value);
  return issues.length > 0
    ? `its JSON is not a ${ref.split("/").at(-1)}: ${issues[0]?.path || "/"} ${issues[0]?.message}`
    : null;
}

/**
 * JSON, as a body's Content-Type: `application/json` (a charset or other parameters aside, in any case), and
 * a type with the `+json` suffix (RFC 6839), which is JSON too.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[^/]+\+json$/.test(type);
}

/**
 * A query or header value as its schema reads it: text for a string, a number for a numeric parameter
 * (nothing but blanks is no number), `true` or `false` for a boolean one (any other text stays text, which
 * the schema then refuses).
 */
function parameterValue(raw: string, schema: Record<string, unknown>): unknown {
  switch (schema.type) {
    case "integer":
    case "number":
      return raw.trim() === "" ? Number.NaN : Number(raw);
    case "boolean":
      return raw === "true" ? true : raw === "false" ? false : raw;
    default:
      return raw;
  }
}
