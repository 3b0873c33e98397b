/**
 * Checks of path, query and header parameters and of JSON bodies against the contract, with the
 * description's exact messages where it names them.
 *
 * Only operations that document a 400 answer malformed parameters with 400; elsewhere (the progress
 * endpoint reads its ID as a plain string) a bad value simply names nothing and the handler answers 404.
 */
import type { Operation, ParameterSpec } from "../../contract/operations.ts";
import type { ValidationIssue, Validators } from "../../contract/validate.ts";
import { type ApiError, badRequest } from "../errors.ts";
import type { RequestContext, RouteSpec } from "../resource.ts";
import type { HeaderReader } from "./exchange.ts";

/** `audienceId` → `audience`, `userId` → `user`: the noun the description's ID messages use. */
function noun(name: string): string {
  return name
    .replace(/Id$/, "")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
}

function pathMessages(p: ParameterSpec): { missing: string; invalid: string } {
  if (p.messages) return p.messages;
  const n = noun(p.name);
  return { missing: `${n[0]?.toUpperCase()}${n.slice(1)} ID is required`, invalid: `Invalid ${n} ID format` };
}

/** A query or header value as its schema's type: what it is validated as, by the simulator and the proxy. */
export function coerceParameter(value: string, schema: Record<string, unknown>): unknown {
  const t = schema.type;
  if (t === "integer" || t === "number") return value.trim() === "" ? Number.NaN : Number(value);
  if (t === "boolean") return value === "true" ? true : value === "false" ? false : value;
  return value;
}

/** Validates parameters; returns the declared query and header values, coerced. */
export function checkParameters(
  validators: Validators,
  op: Operation,
  params: Record<string, string>,
  url: URL,
  headers: HeaderReader,
  spec?: RouteSpec,
): Record<string, unknown> {
  const strict = op.statuses.includes(400);
  const values: Record<string, unknown> = {};
  for (const p of op.parameters) {
    if (p.in === "path") {
      if (!strict) continue;
      const v = params[p.name] ?? "";
      const msg = pathMessages(p);
      // Only what the contract refuses is malformed: a blank ID the schema allows (an operation ID is any
      // string) names nothing, and the handler answers 404.
      if (validators.validate(p.schemaRef, v).length > 0)
        throw badRequest(v.trim() === "" ? msg.missing : msg.invalid);
      continue;
    }
    const raw =
      p.in === "query" ? url.searchParams.get(p.name) : p.in === "header" ? headers.get(p.name) : null;
    if (raw === null) {
      if (p.required && strict)
        throw badRequest(`${p.name} ${p.in === "header" ? "header " : ""}is required`);
      continue;
    }
    const value = coerceParameter(raw, p.schema);
    if (validators.validate(p.schemaRef, value).length > 0) {
      if (!strict) continue;
      const where = p.in === "header" ? "header" : "query";
      throw (
        spec?.invalidParameter?.(p.name, where, raw) ??
        badRequest(`Invalid ${where === "header" ? `${p.name} header` : `query parameter ${p.name}`}`)
      );
    }
    values[p.name] = value;
  }
  return values;
}

/**
 * Validates a parsed JSON body. A body that breaks the schema is answered by the route's own
 * `invalidBody` (the description's message) or a generic 400 listing the issues.
 */
export function checkBody(validators: Validators, ctx: RequestContext, op: Operation, spec: RouteSpec): void {
  if (!op.bodySchemaRef) return;
  if (!ctx.hasBody) {
    if (!op.bodyRequired) return;
    throw invalid(
      spec,
      [{ code: "required", path: "", message: "a JSON body is required", params: {} }],
      undefined,
    );
  }
  const issues = validators.validate(op.bodySchemaRef, ctx.body);
  if (issues.length > 0) {
    const err = invalid(spec, issues, ctx.body);
    if (err) throw err;
  }
}

function invalid(spec: RouteSpec, issues: ValidationIssue[], body: unknown): ApiError | null {
  if (spec.invalidBody) return spec.invalidBody(issues, body);
  return badRequest("Invalid request body", { issues: issues.slice(0, 20) });
}
