/**
 * Checks one response against what the contract documents for its operation: the status is documented,
 * the Content-Type is one the status declares, required headers are present and valid, and the body
 * matches the schema. Shared by the simulator's own tests and the conformance kit.
 */
import { deref as ownDeref, resolvePointer as ownResolve, type Pointers } from "./document.ts";
import { type Operation, operationsById as ownOperations } from "./operations.ts";
import { contractPointer, pointerSegment } from "./pointer.ts";
import { ownValidators, type Validators } from "./validate.ts";

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

/** A documented response, with its headers to check and the pointer to its JSON body's schema. */
type Found = { response: Json; headers: HeaderCheck[]; body: string } | null;

/** What a response check reads of one document: its operations, pointers and validators. */
export interface ResponseSource {
  operationsById: ReadonlyMap<string, Operation>;
  pointers: Pointers;
  validators: Validators;
}

/** The response object and a pointer to it (following a `$ref` into components.responses). */
function lookUp(source: ResponseSource, operationId: string, status: number): Found {
  const { resolvePointer, deref } = source.pointers;
  const op = source.operationsById.get(operationId);
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
  return { response, headers, body: `${here}/content/application~1json/schema` };
}

/** A response check over one document; what it finds of an operation and status is found once. */
export type CheckResponse = (
  operationId: string,
  status: number,
  /** A `Headers`, or anything that reads a header by name (case-insensitively) the same way. */
  headers: { get(name: string): string | null },
  bodyText: string,
) => ResponseIssue[];

export function responseChecker(source: ResponseSource): CheckResponse {
  const found = new Map<string, Found>();
  const find = (operationId: string, status: number): Found => {
    const key = `${operationId} ${status}`;
    let f = found.get(key);
    if (f === undefined) {
      f = lookUp(source, operationId, status);
      found.set(key, f);
    }
    return f;
  };
  return (operationId, status, headers, bodyText) =>
    check(find(operationId, status), source.validators, operationId, status, headers, bodyText);
}

function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function check(
  found: Found,
  validators: Validators,
  operationId: string,
  status: number,
  headers: { get(name: string): string | null },
  bodyText: string,
): ResponseIssue[] {
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
    const hIssues = validators.validate(h.pointer, h.numeric ? Number(value) : value);
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
  const bIssues = validators.validate(found.body, body);
  if (bIssues.length > 0)
    issues.push({ code: "body-schema", message: "body does not match the schema", detail: bIssues });
  return issues;
}

/** Checks a response against this package's own description (the simulator's tests and hosts). */
export const checkResponse: CheckResponse = responseChecker({
  operationsById: ownOperations,
  pointers: { resolvePointer: ownResolve, deref: ownDeref },
  validators: ownValidators,
});
