/**
 * The description as Scalar's reference is handed it: `openapi.json` with a `type` on every schema.
 *
 * Why a copy: Scalar types each schema by its `type` and logs "document validation errors" for a schema
 * without one, although JSON Schema reads a schema with only a description as "any value" and a `oneOf`
 * as its branches. Where the contract states the type a schema implies (a `const`, an object's
 * composition) it says so itself; what is left is filled in here without changing what the schema
 * accepts: a composition whose every branch is typed gets their types, anything else the six JSON types.
 * The contract (`GET /_openapi.json`) stays as written.
 */
import type { OpenApiDocument } from "../contract/document.ts";

const ANY_JSON = ["object", "array", "string", "number", "boolean", "null"];
/** The keywords whose values are schemas, or maps or lists of schemas. */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "propertyNames", "contains"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs"];

type Schema = Record<string, unknown>;
const isSchema = (s: unknown): s is Schema => typeof s === "object" && s !== null && !Array.isArray(s);

/** The types a schema without one accepts, as far as its `oneOf`/`anyOf` branches say. */
function impliedTypes(s: Schema): string[] {
  const branches = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  const types = new Set<string>();
  for (const b of branches ?? []) {
    if (!isSchema(b) || b.type === undefined) return ANY_JSON;
    for (const t of [b.type].flat() as string[]) types.add(t === "integer" ? "number" : t);
  }
  return types.size > 0 ? [...types] : ANY_JSON;
}

function typed(s: unknown): void {
  if (!isSchema(s)) return;
  if (s.type === undefined && s.$ref === undefined) s.type = impliedTypes(s);
  for (const k of ONE) typed(s[k]);
  for (const k of MANY) for (const b of (s[k] as unknown[] | undefined) ?? []) typed(b);
  for (const k of MAP) for (const b of Object.values((s[k] as Schema | undefined) ?? {})) typed(b);
}

/** Every `schema` under the paths (parameters, bodies, responses, headers). */
function typedUnder(node: unknown): void {
  if (Array.isArray(node)) for (const n of node) typedUnder(n);
  else if (isSchema(node))
    for (const [k, v] of Object.entries(node)) {
      if (k === "schema") typed(v);
      else if (k !== "examples" && k !== "example") typedUnder(v);
    }
}

/** A deep copy of `doc` whose every schema states its type. */
export function withStatedTypes(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc);
  const components = copy.components as { schemas?: Schema } | undefined;
  for (const s of Object.values(components?.schemas ?? {})) typed(s);
  typedUnder(copy.paths);
  return copy;
}
