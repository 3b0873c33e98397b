/**
 * fast-check arbitraries from the contract's JSON Schemas: valid values, and invalid values made from a
 * valid one by breaking exactly one constraint (a type, a required property, a length, a pattern, an
 * enum, a count, `additionalProperties: false`, a const, a format, a reserved value, an `x-` limit). Every
 * value is confirmed with the contract's own validator, so a generator slip never becomes a false alarm.
 */
import fc from "fast-check";
import { resolve, type Schema, validate } from "../description/contract.ts";

/** Overrides by instance path (`mindIds[]`, `hypothesis.subgroups[].id`): semantic values a schema cannot give. */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

const MAX_DEPTH = 6;

function types(s: Schema): string[] {
  if (Array.isArray(s.type)) return s.type as string[];
  if (typeof s.type === "string") return [s.type];
  if (s.properties || s.required || s.additionalProperties !== undefined) return ["object"];
  return [];
}

function merge(base: Schema, extra: Schema): Schema {
  const { anyOf: _a, oneOf: _o, allOf: _l, ...rest } = base;
  const props: Schema = { ...((rest.properties ?? {}) as Schema) };
  // `properties: { x: true }` in a branch adds no constraint: keep the base's schema for x.
  for (const [k, v] of Object.entries((extra.properties ?? {}) as Schema))
    if (v !== true || !(k in props)) props[k] = v;
  return {
    ...rest,
    ...extra,
    properties: props,
    required: [...new Set([...((rest.required ?? []) as string[]), ...((extra.required ?? []) as string[])])],
  };
}

/** A valid value for `schema`; `hints` replace generated values at the given instance paths. */
export function validArb(schemaIn: unknown, hints: Hints = {}, path = "", depth = 0): fc.Arbitrary<unknown> {
  const hint = hints[path];
  if (hint) return hint;
  let s = resolve(schemaIn);
  if (s.allOf)
    s = (s.allOf as unknown[]).reduce<Schema>((acc, b) => merge(acc, resolve(b)), { ...s, allOf: undefined });
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (branches) {
    // A branch's value leaves out what only the other branches require ("exactly one of mindId or mindIds").
    const requiredBy = branches.map((b) => (resolve(b).required ?? []) as string[]);
    return fc.oneof(
      ...branches.map((b, i) => {
        const others = requiredBy.filter((_, j) => j !== i).flat();
        const m = merge(s, resolve(b));
        const props = { ...(m.properties as Schema) };
        for (const k of others) if (!(requiredBy[i] ?? []).includes(k)) delete props[k];
        return validArb({ ...m, properties: props }, hints, path, depth);
      }),
    );
  }
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const ts = types(s);
  if (ts.length === 0) return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 1 });
  if (ts.length > 1) return fc.oneof(...ts.map((t) => validArb({ ...s, type: t }, hints, path, depth)));
  switch (ts[0]) {
    case "string":
      return stringArb(s);
    case "integer":
      return fc.integer({ min: (s.minimum as number) ?? 0, max: (s.maximum as number) ?? 10_000 });
    case "number":
      return fc.double({
        min: (s.minimum as number) ?? 0,
        max: (s.maximum as number) ?? 10_000,
        noNaN: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayArb(s, hints, path, depth);
    default:
      return objectArb(s, hints, path, depth);
  }
}

const WORD = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,14}[A-Za-z0-9]$/);

function stringArb(s: Schema): fc.Arbitrary<string> {
  const min = Math.max((s.minLength as number) ?? 0, (s["x-min-trimmed-length"] as number) ?? 0);
  const max = Math.min((s.maxLength as number) ?? 40, (s["x-max-trimmed-length"] as number) ?? 40, 40);
  let arb: fc.Arbitrary<string>;
  if (s.format === "uuid") arb = fc.uuid();
  else if (s.format === "date-time") arb = fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  else if (typeof s.pattern === "string" && s.pattern !== "\\S")
    arb = fc.stringMatching(new RegExp(s.pattern));
  else if (min > 0 || s.pattern === "\\S") arb = WORD;
  else arb = fc.oneof(WORD, fc.string({ maxLength: max }));
  const reserved = ((s.not as Schema | undefined)?.enum ?? []) as unknown[];
  return arb.filter((v) => {
    const trimmed = v.trim().length;
    return (
      v.length >= ((s.minLength as number) ?? 0) &&
      v.length <= ((s.maxLength as number) ?? Number.POSITIVE_INFINITY) &&
      trimmed >= ((s["x-min-trimmed-length"] as number) ?? 0) &&
      trimmed <= ((s["x-max-trimmed-length"] as number) ?? Number.POSITIVE_INFINITY) &&
      !reserved.includes(v) &&
      (typeof s.pattern !== "string" || new RegExp(s.pattern).test(v)) &&
      v.length <= max + 40
    );
  });
}

function arrayArb(s: Schema, hints: Hints, path: string, depth: number): fc.Arbitrary<unknown[]> {
  const min = (s.minItems as number) ?? 0;
  const max = Math.min((s.maxItems as number) ?? min + 4, min + 4);
  const item = depth > MAX_DEPTH ? fc.constant(null) : validArb(s.items ?? {}, hints, `${path}[]`, depth + 1);
  const unique = (s["x-unique-item-properties"] ?? []) as string[];
  return fc.array(item, { minLength: min, maxLength: max }).map((items) => makeUnique(items, unique));
}

/** Makes the named string properties unique across items (as `x-unique-item-properties` asks). */
function makeUnique(items: unknown[], props: string[]): unknown[] {
  if (props.length === 0) return items;
  return items.map((it, i) => {
    if (!it || typeof it !== "object") return it;
    const copy = { ...(it as Record<string, unknown>) };
    for (const p of props) if (typeof copy[p] === "string") copy[p] = `${(copy[p] as string).trim()}-${i}`;
    return copy;
  });
}

function objectArb(s: Schema, hints: Hints, path: string, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const required = (s.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(props)) {
    if (sub === true) continue;
    model[name] = validArb(sub, hints, path ? `${path}.${name}` : name, depth + 1);
  }
  const record = fc.record(model, { requiredKeys: required.filter((r) => r in model) });
  const extra = s.additionalProperties;
  const names = ((s.propertyNames as Schema | undefined) && resolve(s.propertyNames).enum) as
    | string[]
    | undefined;
  if (extra && typeof extra === "object" && names) {
    const values = validArb(extra, hints, path ? `${path}.*` : "*", depth + 1);
    return fc
      .tuple(record, fc.dictionary(fc.constantFrom(...names), values, { maxKeys: 3 }))
      .map(([a, b]) => ({ ...b, ...(a as object) }));
  }
  return record;
}

/** A valid body for the schema at `pointer`, confirmed by the contract's validator. */
export function validBody(pointer: string, hints: Hints = {}): fc.Arbitrary<unknown> {
  return validArb({ $ref: pointer }, hints).filter((v) => validate(pointer, v).length === 0);
}

/** One way of breaking one constraint of a valid value. */
export interface Mutation {
  /** The constraint broken, e.g. `hypothesis.subgroups: maxItems 15`. */
  rule: string;
  /** The limit's id in the coverage catalogue (`op:where:keyword`), when it is one. */
  keyword: string;
  where: string;
  apply(valid: unknown): unknown;
}

const SKIP = Symbol("skip");

type Step = string | number;

function getAt(v: unknown, steps: Step[]): unknown {
  let cur = v;
  for (const s of steps) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[s as string];
  }
  return cur;
}

/** A deep copy with the value at `steps` replaced (or deleted when `value` is SKIP); null if not reachable. */
function setAt(v: unknown, steps: Step[], value: unknown): unknown {
  const copy = structuredClone(v);
  if (steps.length === 0) return value;
  let cur = copy as Record<string, unknown>;
  for (const s of steps.slice(0, -1)) {
    const next = cur[s as string];
    if (next === null || typeof next !== "object") return SKIP;
    cur = next as Record<string, unknown>;
  }
  const last = steps.at(-1) as string;
  if (value === SKIP) delete cur[last];
  else cur[last] = value;
  return copy;
}

function label(steps: Step[], where: string): string {
  return steps.length ? `${where}.${steps.join(".")}`.replace(/\.(\d+)/g, "[$1]") : where;
}

function wrongTypeValue(ts: string[]): unknown {
  if (!ts.includes("string")) return "not-a-valid-value";
  if (!ts.includes("integer") && !ts.includes("number")) return 12345;
  if (!ts.includes("object")) return { unexpected: true };
  return [];
}

function failingString(s: Schema): string | null {
  const re = new RegExp(s.pattern as string);
  for (const c of ["", " ", "   ", "a b", "a.b", "ä", "!", "-", "a/b", "price-x"]) {
    if (!re.test(c) && c.length >= ((s.minLength as number) ?? 0)) return c;
  }
  return null;
}

/**
 * Every single-constraint mutation the schema allows, walking it with the instance path. `where` names
 * the location for coverage ids (`body`, `query:filters`).
 */
export function mutations(schemaIn: unknown, where = "body"): Mutation[] {
  const out: Mutation[] = [];
  walk(resolve(schemaIn), { steps: [], schemaPath: [], where, out, depth: 0 });
  return out;
}

function covWhere(where: string, schemaPath: string[]): string {
  return [where, ...schemaPath].join(".").replace(/\.\[\]/g, "[]");
}

/** Where a walk of the schema is: the value's steps, the schema's path, the body, the mutations so far. */
interface Place {
  steps: Step[];
  schemaPath: string[];
  where: string;
  out: Mutation[];
  depth: number;
}

/** One level down: `step` into the value, `segment` into the schema, its mutations into `out`. */
const below = (p: Place, step: Step, segment: string, out: Mutation[]): Place => ({
  ...p,
  steps: [...p.steps, step],
  schemaPath: [...p.schemaPath, segment],
  out,
  depth: p.depth + 1,
});

function walk(s: Schema, p: Place): void {
  const { steps, schemaPath, where, out, depth } = p;
  if (depth > MAX_DEPTH) return;
  const at = label(steps, where);
  const cw = covWhere(where, schemaPath);
  const put = (keyword: string, rule: string, value: unknown) =>
    out.push({ rule: `${at}: ${rule}`, keyword, where: cw, apply: (v) => setAt(v, steps, value) });
  const ts = types(s);
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (alternatives && ts.length === 0) {
    // A property that is one of several shapes (`FormationHypothesis` or null): break within each shape;
    // the validator drops what another shape still accepts.
    for (const b of alternatives) walk(resolve(b), { ...p, depth: depth + 1 });
    return;
  }
  if (ts.length > 0 && s.const === undefined && !s.enum)
    put("type", `type ${ts.join("|")}`, wrongTypeValue(ts));
  if (s.const !== undefined)
    put(
      "const",
      `const ${JSON.stringify(s.const)}`,
      typeof s.const === "boolean" ? !s.const : `${String(s.const)}-other`,
    );
  if (Array.isArray(s.enum)) put("enum", `enum ${JSON.stringify(s.enum)}`, "not-in-the-enum");
  if (ts.includes("string")) stringMutations(s, put);
  if (ts.includes("integer") || ts.includes("number")) {
    if (typeof s.minimum === "number") put("minimum", `minimum ${s.minimum}`, s.minimum - 1);
    if (typeof s.maximum === "number") put("maximum", `maximum ${s.maximum}`, s.maximum + 1);
    if (ts.includes("integer") && !ts.includes("number")) put("type", "type integer (a fraction)", 1.5);
  }
  if (ts.includes("array")) arrayMutations(s, p);
  if (ts.includes("object") || s.properties) objectMutations(s, p);
}

function stringMutations(s: Schema, put: (k: string, rule: string, v: unknown) => void): void {
  if (typeof s.maxLength === "number")
    put("maxLength", `maxLength ${s.maxLength}`, "a".repeat(s.maxLength + 1));
  if (typeof s.minLength === "number" && s.minLength > 0)
    put("minLength", `minLength ${s.minLength}`, "a".repeat(s.minLength - 1));
  if (typeof s["x-max-trimmed-length"] === "number") {
    const n = s["x-max-trimmed-length"] as number;
    put("x-max-trimmed-length", `x-max-trimmed-length ${n}`, ` ${"a".repeat(n + 1)} `);
  }
  if (typeof s["x-min-trimmed-length"] === "number")
    put("x-min-trimmed-length", "x-min-trimmed-length", "   ");
  if (typeof s.pattern === "string") {
    const bad = failingString(s);
    if (bad !== null) put("pattern", `pattern ${s.pattern}`, bad);
  }
  if (s.format === "uuid") put("format", "format uuid", "not-a-uuid");
  const reserved = (s.not as Schema | undefined)?.enum as unknown[] | undefined;
  for (const r of reserved ?? []) put("not", `reserved value ${JSON.stringify(r)}`, r);
}

/**
 * How mutations of the value at `steps` are added: `pick` gives that value as the kind the keyword is
 * about (undefined when it is not one, and the mutation does not apply), `f` the value that breaks it.
 */
function editsAt<T>({ out, steps, schemaPath, where }: Place, pick: (value: unknown) => T | undefined) {
  const at = label(steps, where);
  const cw = covWhere(where, schemaPath);
  return (keyword: string, rule: string, f: (value: T) => unknown) =>
    out.push({
      rule: `${at}: ${rule}`,
      keyword,
      where: cw,
      apply: (v) => {
        const value = pick(getAt(v, steps));
        if (value === undefined) return SKIP;
        const next = f(value);
        return next === SKIP ? SKIP : setAt(v, steps, next);
      },
    });
}

function arrayMutations(s: Schema, p: Place): void {
  const edit = editsAt(p, (x) => (Array.isArray(x) ? x : undefined));
  const unique = (s["x-unique-item-properties"] ?? []) as string[];
  if (typeof s.maxItems === "number") {
    const max = s.maxItems;
    edit("maxItems", `maxItems ${max}`, (arr) =>
      arr.length === 0
        ? SKIP
        : makeUnique(
            Array.from({ length: max + 1 }, (_, i) => structuredClone(arr[i % arr.length])),
            unique,
          ),
    );
  }
  if (typeof s.minItems === "number" && s.minItems > 0) {
    const min = s.minItems;
    edit("minItems", `minItems ${min}`, (arr) => arr.slice(0, min - 1));
  }
  for (const prop of unique) {
    edit("x-unique-item-properties", `items have unique ${prop} values`, (arr) => {
      if (arr.length < 2) return SKIP;
      const copy = structuredClone(arr) as Record<string, unknown>[];
      (copy[1] as Record<string, unknown>)[prop] = (copy[0] as Record<string, unknown>)[prop];
      return copy;
    });
  }
  if (s.items) walk(resolve(s.items), below(p, 0, "[]", p.out));
}

function objectMutations(s: Schema, p: Place): void {
  const { steps, out } = p;
  const edit = editsAt(p, (x) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? (structuredClone(x) as Record<string, unknown>)
      : undefined,
  );
  for (const r of (s.required ?? []) as string[]) {
    edit("required", `required ${r}`, (o) => {
      delete o[r];
      return o;
    });
  }
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (branches) {
    const keys = branches.flatMap((b) => (resolve(b).required ?? []) as string[]);
    edit("anyOf", `one of ${keys.join(", ")} is required`, (o) => {
      for (const k of keys) delete o[k];
      return o;
    });
  }
  if (s.additionalProperties === false) {
    edit("additionalProperties", "additionalProperties false", (o) => ({ ...o, unexpectedProperty: 1 }));
  }
  const names = s.propertyNames ? (resolve(s.propertyNames).enum as string[] | undefined) : undefined;
  if (names)
    edit("propertyNames", `property names ${JSON.stringify(names)}`, (o) => ({ ...o, notAKnownName: null }));
  const branchKeys = new Set(
    ((branches ?? []) as unknown[]).flatMap((b) => (resolve(b).required ?? []) as string[]),
  );
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    if (sub === true) continue;
    const local: Mutation[] = [];
    walk(resolve(sub), below(p, name, name, local));
    // A property that picks an anyOf branch (mindId / mindIds) is only broken where the value already has
    // it: adding it would switch branches ("when both are present mindId wins and mindIds is ignored").
    out.push(...(branchKeys.has(name) ? local.map((m) => onlyIfPresent(m, [...steps, name])) : local));
  }
  if (names && s.additionalProperties && typeof s.additionalProperties === "object") {
    const first = names[0] as string;
    walkAdditional(resolve(s.additionalProperties), p, first);
  }
}

function onlyIfPresent(m: Mutation, steps: Step[]): Mutation {
  return { ...m, apply: (v) => (getAt(v, steps) === undefined ? SKIP : m.apply(v)) };
}

/** Mutations of a map's values (`FilterSelection`): applied under the first allowed key. */
function walkAdditional(s: Schema, p: Place, key: string): void {
  const { steps, schemaPath, where, out } = p;
  for (const branch of ((s.oneOf ?? s.anyOf ?? [s]) as unknown[]).map(resolve)) {
    const local: Mutation[] = [];
    walk(branch, below(p, key, "*", local));
    out.push(...local.filter((m) => m.keyword !== "type"));
  }
  out.push({
    rule: `${label([...steps, key], where)}: type array|null`,
    keyword: "type",
    where: covWhere(where, [...schemaPath, "*"]),
    apply: (v) => setAt(v, [...steps, key], "not-an-array"),
  });
}

/** Applies a mutation and keeps it only if the contract's validator really rejects the result. */
export function breakOne(pointer: string, valid: unknown, m: Mutation): unknown | null {
  const broken = m.apply(valid);
  if (broken === SKIP) return null;
  return validate(pointer, broken).length > 0 ? broken : null;
}

/** Top-level bodies that are not the JSON object every body schema asks for. */
export const NOT_AN_OBJECT: readonly { rule: string; text: string }[] = [
  { rule: "body: type object (an array)", text: "[]" },
  { rule: "body: type object (a string)", text: '"text"' },
  { rule: "body: type object (a number)", text: "42" },
  { rule: "body: type object (null)", text: "null" },
];

/** Bodies that are not JSON at all. */
export const NOT_JSON: readonly { rule: string; text: string }[] = [
  { rule: "body: JSON (truncated)", text: '{"a":' },
  { rule: "body: JSON (single quotes)", text: "{'a': 1}" },
  { rule: "body: JSON (trailing comma)", text: '{"a":1,}' },
  { rule: "body: JSON (not JSON)", text: "hello" },
  { rule: "body: JSON (nested 200 deep)", text: `${"[".repeat(200)}${"]".repeat(200)}` },
];
