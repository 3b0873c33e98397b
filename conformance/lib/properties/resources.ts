/**
 * Path parameters by name: real IDs from the target, unknown-but-well-formed IDs, and malformed ones, all
 * derived from the parameter's schema. A new operation whose parameters use these names is covered by the
 * generic checks with no new code; other names get schema-generated values.
 */
import fc from "fast-check";
import { isUuid, type Operation, resolve } from "../description/contract.ts";
import type { Target } from "../running/context.ts";

export type PathParams = Record<string, string>;

/** Real values for every path parameter, or the name of what the target lacks. */
export function realParams(o: Operation, t: Target, audience = "main"): PathParams | string {
  const out: PathParams = {};
  for (const p of o.parameters.filter((x) => x.in === "path")) {
    const v = realValue(p.name, t, audience);
    if (v === null) return `no known value for path parameter ${p.name}`;
    out[p.name] = v;
  }
  return out;
}

function realValue(name: string, t: Target, audience: string): string | null {
  const i = t.info;
  switch (name) {
    case "audienceId":
      return i.audiences[audience] ?? null;
    case "formationId":
      return (
        Object.values(i.formations).find((f) => i.audiences[f.audience] === i.audiences[audience])?.id ?? null
      );
    case "mindId":
      return i.minds.mainMember ?? null;
    case "userId":
      return i.users.admin ?? null;
    default:
      return null;
  }
}

/** A value of the parameter's own shape that names nothing on the target. */
export function unknownArb(schemaIn: unknown): fc.Arbitrary<string> {
  const s = resolve(schemaIn);
  if (s.format === "uuid") return fc.uuid({ version: 4 });
  if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern));
  return fc.uuid({ version: 4 }).map((u) => `cs_${u.replaceAll("-", "")}`);
}

/** True when the parameter's schema constrains its shape, so a malformed value exists. */
export function hasShape(schemaIn: unknown): boolean {
  const s = resolve(schemaIn);
  return s.format === "uuid" || typeof s.pattern === "string";
}

const SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-~";

/**
 * Values that break the parameter's format or pattern. Only characters that survive URL encoding as one
 * path segment unchanged in meaning (no `.`, `/`, `%`), and never a value the schema would accept.
 */
export function malformedArb(schemaIn: unknown): fc.Arbitrary<string> {
  const s = resolve(schemaIn);
  const accepts = (v: string) => (s.format === "uuid" ? isUuid(v) : new RegExp(s.pattern as string).test(v));
  const mutatedUuid = fc
    .uuid({ version: 4 })
    .chain((u) =>
      fc.constantFrom(`${u}0`, u.slice(1), u.replaceAll("-", "_"), `${u.slice(0, 35)}g`, `x${u}`, ` ${u}`),
    );
  const cuidLike = fc
    .stringMatching(/^c[a-z0-9]{24}$/)
    .chain((c) =>
      fc.constantFrom(`${c}0`, c.slice(0, 24), c.toUpperCase(), `d${c.slice(1)}`, `${c.slice(0, 24)}_`),
    );
  return fc
    .oneof(
      fc.string({ unit: fc.constantFrom(...SAFE), minLength: 1, maxLength: 40 }),
      fc.constantFrom("null", "undefined", "0", "-1", "1e3", "true", "NaN", "__proto__", "~"),
      mutatedUuid,
      cuidLike,
    )
    .filter((v) => v.trim().length > 0 && !accepts(v) && !accepts(v.trim()));
}
