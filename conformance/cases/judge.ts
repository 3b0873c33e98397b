/**
 * Whether an answer is one the case allows: its status, and then its words, `data.code` and fields as the
 * allowed answer of that status states them. Any allowed answer that fits is right; otherwise the message
 * says what was answered against what the description allows.
 */
import type { Answer, Field } from "./case.ts";

/** The value at a dotted path of a JSON body (`data.minds.0.id`; `""` is the body itself). */
export function at(body: unknown, path: string): unknown {
  if (path === "") return body;
  let v: unknown = body;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export function has(body: unknown, path: string): boolean {
  const keys = path.split(".");
  const last = keys.pop() as string;
  const parent = at(body, keys.join("."));
  return parent !== null && typeof parent === "object" && Object.hasOwn(parent, last);
}

const show = (v: unknown): string => (v === undefined ? "absent" : JSON.stringify(v)?.slice(0, 120));

export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
  );
}

/** What `field` finds wrong with the value at `path` of `body`, or null. */
export function fieldProblem(body: unknown, path: string, field: Field): string | null {
  const value = at(body, path);
  const where = path || "the body";
  if ("is" in field)
    return sameJson(value, field.is) ? null : `${where} is ${show(value)}, not ${show(field.is)}`;
  if ("oneOf" in field)
    return field.oneOf.some((x) => sameJson(value, x))
      ? null
      : `${where} is ${show(value)}, not one of ${field.oneOf.map(show).join(", ")}`;
  if ("absent" in field) return has(body, path) ? `${where} is present (${show(value)})` : null;
  if ("present" in field) return has(body, path) ? null : `${where} is absent`;
  return field.holds(value, body) ? null : `${where} ${show(value)}: ${field.says}`;
}

export interface Received {
  status: number;
  body: unknown;
  contentType?: string | null;
  /** Response headers by lower-case name. */
  headers?: Readonly<Record<string, string>>;
}

export interface Wording {
  /** Take any words for a stated message (a deployment that translates them: `--relax-wording`). */
  relaxed: boolean;
}

/** What is wrong with `got` against one allowed answer of its status (empty: it fits). */
function problemsAgainst(got: Received, a: Answer, wording: Wording): string[] {
  const out: string[] = [];
  const words = at(got.body, "statusMessage");
  const stated = typeof a.message === "string" ? [a.message] : a.message;
  if (stated && !wording.relaxed && !stated.includes(words as string))
    out.push(`statusMessage ${show(words)}, not ${stated.map(show).join(" or ")}`);
  if (a.contentType !== undefined && !(got.contentType ?? "").toLowerCase().startsWith(a.contentType))
    out.push(`Content-Type ${show(got.contentType)}, not ${a.contentType}`);
  if (a.code !== undefined && at(got.body, "data.code") !== a.code)
    out.push(`data.code ${show(at(got.body, "data.code"))}, not ${show(a.code)}`);
  for (const [path, field] of Object.entries(a.fields ?? {})) {
    const p = fieldProblem(got.body, path, field);
    if (p) out.push(p);
  }
  for (const [name, field] of Object.entries(a.headers ?? {})) {
    const p = fieldProblem(got.headers ?? {}, name, field);
    if (p) out.push(`header ${p}`);
  }
  return out;
}

/** Null when `got` is one of `allowed`; otherwise what differs from the closest of them. */
export function judgeAnswer(got: Received, allowed: readonly Answer[], wording: Wording): string | null {
  const same = allowed.filter((a) => a.status === got.status);
  if (same.length === 0) {
    const words = at(got.body, "statusMessage");
    const said = typeof words === "string" ? ` ${show(words)}` : "";
    return `answered ${got.status}${said}; the description allows ${allowed.map(describeAnswer).join(" or ")}`;
  }
  const problems = same.map((a) => problemsAgainst(got, a, wording));
  if (problems.some((p) => p.length === 0)) return null;
  return `answered ${got.status} with ${(problems[0] as string[]).join("; ")}`;
}

/** An allowed answer in a few words: `403 PLAN_LIMIT`, `404 "Audience not found"`. */
export function describeAnswer(a: Answer): string {
  const words = typeof a.message === "string" ? a.message : a.message?.[0];
  return [String(a.status), a.code, words === undefined ? undefined : JSON.stringify(words)]
    .filter(Boolean)
    .join(" ");
}
