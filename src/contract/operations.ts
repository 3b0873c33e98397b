/**
 * The operation table, read once from the contract: every operation with the full path templates it is
 * served under (each server prefix joined with the path), its parameters, body schema and limits.
 */
import { openapi, deref as ownDeref, type Pointers } from "./document.ts";
import { contractPointer } from "./pointer.ts";

export const METHODS = ["get", "put", "post", "delete", "patch", "options", "head"] as const;
export type Method = Uppercase<(typeof METHODS)[number]>;

export interface ParameterSpec {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  /** Pointer to the parameter's schema in the contract, for the validator. */
  schemaRef: string;
  schema: Record<string, unknown>;
  /** `x-error-messages`: exact messages for a missing or malformed path value. */
  messages?: { missing: string; invalid: string };
}

export interface Operation {
  operationId: string;
  method: Method;
  /** The path as written in the contract, e.g. `/audiences/{audienceId}`. */
  path: string;
  /** Server prefixes it is served under, e.g. `/api/v1` and `/v1`. */
  prefixes: string[];
  parameters: ParameterSpec[];
  /** Pointer to the JSON request body schema, if the operation takes one. */
  bodySchemaRef: string | null;
  bodyRequired: boolean;
  /** `x-max-body-bytes`, or null when the contract sets no cap. */
  maxBodyBytes: number | null;
  /** Documented status codes. */
  statuses: number[];
  /** Operations with no security requirement are public. */
  authenticated: boolean;
  /** Responses declare `Cache-Control` (the description's private, non-cacheable responses). */
  isPrivate: boolean;
  /** Responses declare rate-limit headers: the operation is a v1 operation. */
  rateLimited: boolean;
  /** Media types of the 2xx responses, for content negotiation. */
  successMediaTypes: string[];
}

type Json = Record<string, unknown>;

const pointer = contractPointer;

function parameterSpec(deref: Pointers["deref"], raw: unknown, location: string): ParameterSpec {
  const refd = raw as { $ref?: string };
  const p = deref<Json>(raw as Json);
  const base = refd.$ref ?? location;
  const messages = p["x-error-messages"] as ParameterSpec["messages"];
  return {
    name: p.name as string,
    in: p.in as ParameterSpec["in"],
    required: p.required === true,
    schemaRef: `${base}/schema`,
    schema: p.schema as Json,
    ...(messages ? { messages } : {}),
  };
}

function responsesOf(deref: Pointers["deref"], op: Json): Map<number, Json> {
  const out = new Map<number, Json>();
  for (const [code, r] of Object.entries((op.responses ?? {}) as Json))
    out.set(Number(code), deref<Json>(r as Json));
  return out;
}

function readOperation(
  document: Json,
  deref: Pointers["deref"],
  path: string,
  pathItem: Json,
  method: (typeof METHODS)[number],
): Operation {
  const op = pathItem[method] as Json;
  const servers = (pathItem.servers ?? document.servers) as { url: string }[];
  const prefixes = servers.map((s) => (s.url === "/" ? "" : s.url.replace(/\/$/, "")));
  const own = ((op.parameters ?? []) as unknown[]).map((p, i) =>
    parameterSpec(deref, p, pointer("paths", path, method, "parameters", String(i))),
  );
  // An operation's own parameter replaces the path's of the same name and place (OpenAPI's rule).
  const params = [
    ...((pathItem.parameters ?? []) as unknown[])
      .map((p, i) => parameterSpec(deref, p, pointer("paths", path, "parameters", String(i))))
      .filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)),
    ...own,
  ];
  const body = op.requestBody ? deref<Json>(op.requestBody as Json) : null;
  const json = body ? ((body.content as Json)["application/json"] as Json | undefined) : undefined;
  const responses = responsesOf(deref, op);
  const success = [...responses.entries()].filter(([code]) => code >= 200 && code < 300);
  const headersOf = (r: Json) => Object.keys((r.headers ?? {}) as Json);
  return {
    operationId: op.operationId as string,
    method: method.toUpperCase() as Method,
    path,
    prefixes,
    parameters: params,
    bodySchemaRef: json
      ? pointer("paths", path, method, "requestBody", "content", "application/json", "schema")
      : null,
    bodyRequired: body?.required === true,
    maxBodyBytes: typeof op["x-max-body-bytes"] === "number" ? (op["x-max-body-bytes"] as number) : null,
    statuses: [...responses.keys()].sort((a, b) => a - b),
    authenticated: !(Array.isArray(op.security) && op.security.length === 0),
    isPrivate: success.some(([, r]) => headersOf(r).includes("Cache-Control")),
    rateLimited: success.some(([, r]) => headersOf(r).includes("RateLimit-Limit")),
    successMediaTypes: [...new Set(success.flatMap(([, r]) => Object.keys((r.content ?? {}) as Json)))],
  };
}

/** The operation table of `document`, read once by whoever makes a Contract of it. */
export function readOperations(document: object, deref: Pointers["deref"]): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries((document as Json).paths as Json)) {
    for (const method of METHODS) {
      if ((item as Json)[method])
        ops.push(readOperation(document as Json, deref, path, item as Json, method));
    }
  }
  return ops;
}

/** This package's own description's operations (the simulator's). */
export const operations: readonly Operation[] = readOperations(openapi, ownDeref);
export const operationsById: ReadonlyMap<string, Operation> = new Map(
  operations.map((o) => [o.operationId, o]),
);
