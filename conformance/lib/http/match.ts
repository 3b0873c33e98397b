/**
 * Which operation of the contract a request names: the kit's own matching, written from the description's
 * path templates (`{prefix}{path}` for each server prefix), so that a matching bug of the simulator is not
 * shared by the proxy that judges traffic in front of it.
 *
 * OpenAPI: concrete paths match before templated ones, so of the templates a path fits, the one with a
 * literal segment first where they differ wins (`/formations/preview` over `/formations/{formationId}`).
 * A HEAD is served as the GET of its path.
 */
import { type Operation, runContract } from "../description/contract.ts";

export type OperationMatch =
  | { kind: "found"; op: Operation; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

interface Template {
  /** Each segment: a literal, or `{name}` for a parameter. */
  segments: { literal: string | null; param: string | null }[];
  /** What each method is, on this template. */
  ops: Map<string, Operation>;
}

/** The path templates of a contract, made once per contract (a run's may be another version). */
const templatesOf = new WeakMap<object, Template[]>();

function templates(): Template[] {
  const contract = runContract();
  const known = templatesOf.get(contract);
  if (known) return known;
  const byText = new Map<string, Template>();
  for (const op of contract.operations)
    for (const prefix of op.prefixes) {
      const text = `${prefix}${op.path}`;
      let t = byText.get(text);
      if (!t) {
        const segments = text
          .split("/")
          .slice(1)
          .map((s) => {
            const m = /^\{(.+)\}$/.exec(s);
            return m ? { literal: null, param: m[1] as string } : { literal: s, param: null };
          });
        t = { segments, ops: new Map() };
        byText.set(text, t);
      }
      t.ops.set(op.method, op);
    }
  const all = [...byText.values()];
  templatesOf.set(contract, all);
  return all;
}

export function matchPath(method: string, pathname: string): OperationMatch {
  const segs = pathname.split("/").slice(1);
  let best: Template | null = null;
  for (const t of templates()) if (fits(t, segs) && (!best || moreConcrete(t, best))) best = t;
  if (!best) return { kind: "not-found" };
  const op = best.ops.get(method) ?? (method === "HEAD" ? best.ops.get("GET") : undefined);
  if (!op) return { kind: "method-not-allowed", allowed: [...best.ops.keys()] };
  const params: Record<string, string> = {};
  best.segments.forEach((s, i) => {
    if (s.param) params[s.param] = decoded(segs[i] as string);
  });
  return { kind: "found", op, params };
}

function fits(t: Template, segs: string[]): boolean {
  return (
    t.segments.length === segs.length &&
    t.segments.every((s, i) => s.literal === null || s.literal === segs[i])
  );
}

/** A literal segment before a parameter at the first place the two templates differ. */
function moreConcrete(a: Template, b: Template): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const [x, y] = [a.segments[i]?.literal !== null, b.segments[i]?.literal !== null];
    if (x !== y) return x;
  }
  return false;
}

/** A malformed percent-escape is kept as sent: the parameter's schema then judges it. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
