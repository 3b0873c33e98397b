/**
 * Checks one response against what the contract documents for its operation: the status is documented,
 * the Content-Type is one the status declares, required headers are present and valid, and the body
 * matches the schema. Shared by the simulator's own tests and the conformance kit.
 */
import { contract, deref, resolvePointer } from "./document.ts";
import { operationsById } from "./operations.ts";
import { contractPointer, pointerSegment } from "./pointer.ts";
import { validate } from "./validate.ts";

export interface ResponseIssue {
  code:
    | "undocumented-status"
    | "content-type"
    | "missing-header"
    | "header-schema"
    | "body-schema"
    | "body-not-json";
  message: string;
  detail?: unknown;
}

type Json = Record<string, unknown>;

const pointer = contractPointer;

/** A documented header, ready to check: its validator found once, not per response. */
interface HeaderCheck {
  name: string;
  required: boolean;
  numeric: boolean;
  pointer: string;
}

type Found = { response: Json; at: string; headers: HeaderCheck[]; body: string } | null;

/** Found once per operation and status, for the contract in use (the kit may load another). */
const found = new WeakMap<object, Map<string, Found>>();

/** The response object and a pointer to it (following a `$ref` into components.responses). */
function findResponse(operationId: string, status: number): Found {
  let cache = found.get(contract);
  if (!cache) {
    cache = new Map();
    found.set(contract, cache);
  }
  const key = `${operationId} ${status}`;
  if (cache.has(key)) return cache.get(key) as Found;
  const result = lookUp(operationId, status);
  cache.set(key, result);
  return result;
}

function lookUp(operationId: string, status: number): Found {
  const op = operationsById.get(operationId);
  if (!op) return null;
  const at = pointer("paths", op.path, op.method.toLowerCase(), "responses", String(status));
  let here = at;
  let node: unknown;
  try {
    node = resolvePointer(here);
    while (node && typeof node === "object" && typeof (node as { $ref?: unknown }).$ref === "string") {
      here = (node as { $ref: string }).$ref;
      node = resolvePointer(here);
    }
  } catch {
    return null;
  }
  const response = node as Json;
  const headers = Object.entries((response.headers ?? {}) as Json).map(([name, h]): HeaderCheck => {
    const header = deref<Json>(h as Json);
    const type = (header.schema as Json | undefined)?.type;
    const ref = (h as { $ref?: string }).$ref ?? `${here}/headers/${pointerSegment(name)}`;
    return {
      name,
      required: header.required === true,
      numeric: type === "integer" || type === "number",
      pointer: `${ref}/schema`,
    };
  });
  return { response, at: here, headers, body: `${here}/content/application~1json/schema` };
}
function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function checkResponse(
  operationId: string,
  status: number,
  /** A `Headers`, or anything that reads a header by name (case-insensitively) the same way. */
  headers: { get(name: string): string | null },
  bodyText: string,
): ResponseIssue[] {
  const found = findResponse(operationId, status);
  if (!found)
    return [{ code: "undocumented-status", message: `${operationId} does not document status ${status}` }];
  const issues: ResponseIssue[] = [];
  const { response } = found;
  for (const h of found.headers) {
    const value = headers.get(h.name);
    if (value === null) {
      if (h.required) issues.push({ code: "missing-header", message: `missing header ${h.name}` });
      continue;
    }
    const hIssues = validate(h.pointer, h.numeric ? Number(value) : value);
    if (hIssues.length > 0)
      issues.push({ code: "header-schema", message: `header ${h.name}: ${value}`, detail: hIssues });
  }
  const content = (response.content ?? {}) as Json;
  const declared = Object.keys(content);
  if (declared.length === 0) {
    if (bodyText.length > 0)
      issues.push({ code: "body-schema", message: `status ${status} documents no body` });
    return issues;
  }
  const media = mediaTypeOf(headers.get("content-type"));
  if (!declared.includes(media)) {
    issues.push({
      code: "content-type",
      message: `Content-Type ${media || "(none)"} is not one of ${declared.join(", ")}`,
    });
    return issues;
  }
  if (media !== "application/json") return issues;
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return [...issues, { code: "body-not-json", message: "body is not JSON" }];
  }
  const bIssues = validate(found.body, body);
  if (bIssues.length > 0)
    issues.push({ code: "body-schema", message: "body does not match the schema", detail: bIssues });
  return issues;
}
