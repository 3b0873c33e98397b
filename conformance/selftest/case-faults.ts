/**
 * Faults made from the cases, mechanically: each case's request, answered as the description allows, is
 * answered otherwise: a valid case refused with a documented 4xx, a refused case answered 2xx, a refusal
 * swapped for another documented 4xx, a stated message or `data.code` changed, a stated field broken (a
 * value moved, an enumerated value swapped, a field the description leaves out put in). The kit must report
 * each one; no one chose which faults to write.
 */

import { type Answer, answersOf, type Case, type CaseWorld, type Field } from "../cases/case.ts";
import { at, judgeAnswer, sameJson } from "../cases/judge.ts";
import { operationsById } from "../lib/description/contract.ts";
import { type Fault, type FaultEnv, keyOf, pathOf } from "./harness.ts";

export interface CaseFault {
  /** `<case id> — <what the fault does>` */
  name: string;
  caseId: string;
  kind: "refused" | "accepted" | "swapped" | "message" | "code" | "field" | "media" | "header";
  fault: Fault;
  /**
   * How many answers it changed since asked last. An allowed answer the reference server never gives (the
   * 404 of two refusals it answers 403) leaves its fault nothing to change: such a fault proves nothing.
   */
  fired(): number;
}

/** Stands for a value the case's precondition makes at run time: matches any value. */
const MADE = "@@made-by-the-precondition@@";

/**
 * What a case's precondition made in the run the fault is part of, by case ID: the self-test hands the
 * kit's (RunOptions.onCaseMade) to the faults, so that a fault knows the key or copy its case made.
 */
export type MadeOf = (caseId: string) => Readonly<Record<string, unknown>> | undefined;

/** The case's world as the fault sees it: the simulator's handles, and what the case's given made. */
function faultWorld(env: FaultEnv, given?: Readonly<Record<string, unknown>>): CaseWorld {
  const m = env.sim.manifest();
  // Before the run (when the faults are listed) what givens make is a wildcard.
  const made = given ?? (new Proxy({}, { get: () => MADE, has: () => true }) as Record<string, unknown>);
  const info = {
    audiences: Object.fromEntries(Object.entries(m.audiences).map(([k, a]) => [k, a.id])),
    minds: Object.fromEntries(Object.entries(m.minds).map(([k, a]) => [k, a.id])),
    users: Object.fromEntries(Object.entries(m.users).map(([k, u]) => [k, u.id])),
    keys: Object.fromEntries(Object.entries(m.users).map(([k, u]) => [k, u.apiKey])),
    plans: Object.fromEntries(Object.entries(m.users).map(([k, u]) => [k, u.plan])),
    prices: m.prices,
    formations: m.formations,
    // The simulator serves the API host's prefix beside /api/v1.
    extraPrefixes: ["/v1"],
  } as unknown as CaseWorld["info"];
  return {
    info,
    made,
    aud: (h) => info.audiences[h] as string,
    mind: (h) => info.minds[h] as string,
    formation: (h) => info.formations[h]?.id as string,
    user: (r) => info.users[r] as string,
    price: (h) => info.prices[h] as CaseWorld["info"]["prices"][string],
  };
}

/** The case's path as a pattern: its static parameters as they are, what a given makes as any segment. */
function pathPattern(c: Case, w: CaseWorld): RegExp {
  const op = operationsById().get(c.op);
  if (!op) throw new Error(`no operation ${c.op}`);
  const params = c.request(w).params ?? {};
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = params[name];
    return v === undefined || v.includes(MADE) ? "[^/]+" : literal(encodeURIComponent(v));
  });
  const prefixes = op.prefixes.includes("/api/v1") ? "(?:/api/v1|/v1)" : literal(op.prefixes[0] ?? "");
  return new RegExp(`^${prefixes}${literal(path).replaceAll("\\[\\^/\\]\\+", "[^/]+")}$`);
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether `req` is the case's request: its operation and path, its caller, its query and body. */
async function isCaseRequest(c: Case, req: Request, w: CaseWorld): Promise<boolean> {
  const op = operationsById().get(c.op);
  if (!op || req.method !== op.method || !pathPattern(c, w).test(pathOf(req))) return false;
  const key = keyOf(req);
  const handles = Object.entries(w.info.keys)
    .filter(([, k]) => k === key)
    .map(([h]) => h);
  // A key no handle owns is one the case's precondition made (or none at all).
  if (c.as ? !handles.includes(c.as) && !(c.given && handles.length === 0) : handles.length > 0) return false;
  const spec = c.request(w);
  // The query as the case sends it, no more and no less.
  const got = new URL(req.url).searchParams;
  const sent = Object.entries(typeof spec.query === "object" ? spec.query : {}).filter(
    ([, v]) => v !== undefined,
  );
  if ([...new Set(got.keys())].length !== sent.length) return false;
  for (const [k, v] of sent) if (got.get(k) !== String(v)) return false;
  if (spec.json !== undefined && !JSON.stringify(spec.json).includes(MADE)) {
    let sent: unknown;
    try {
      sent = JSON.parse(await req.clone().text());
    } catch {
      return false;
    }
    if (!sameJson(sent, spec.json)) return false;
  }
  return true;
}

/** A fault that changes the case's answer with `change` when the simulator answered `answer`'s status. */
function onCase(
  c: Case,
  madeOf: MadeOf,
  when: (a: Answer, index: number) => boolean,
  /** `live`: the allowed answer as the case's world now reads it (what its given made, not a wildcard). */
  change: (res: Response, body: unknown, url: string, live: Answer) => Response | Promise<Response>,
): Fault & { fired(): number } {
  let fired = 0;
  const fault: Fault = async (req, next, env) => {
    const given = madeOf(c.id);
    // While the case's precondition is being made, its requests are its own: only the case's is changed.
    if (c.given && !given) return next(req);
    const w = faultWorld(env, given);
    let mine: boolean;
    try {
      mine = await isCaseRequest(c, req, w);
    } catch (e) {
      // A fault that cannot tell its request proves nothing: said, not passed over as unfired.
      throw new Error(`the fault of ${c.id} could not read its case: ${(e as Error).message}`);
    }
    const res = await next(req);
    if (!mine) return res;
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : text || undefined;
    } catch {
      body = text;
    }
    // The allowed answer the server gave (of those this fault changes): its stated values are what changes.
    const got = {
      status: res.status,
      body,
      contentType: res.headers.get("content-type"),
      headers: Object.fromEntries(res.headers),
    };
    const live = answersOf(c, w).find(
      (a, i) => when(a, i) && judgeAnswer(got, [a], { relaxed: false }) === null,
    );
    // A 204 or 304 carries no body at all, not even an empty one.
    const again = () => new Response(res.status === 204 || res.status === 304 ? null : text, res);
    if (!live) return again();
    fired++;
    return change(again(), body, pathOf(req), live);
  };
  return Object.assign(fault, {
    fired: () => {
      const n = fired;
      fired = 0;
      return n;
    },
  });
}

function json(status: number, body: unknown, like: Response, contentType?: string): Response {
  const headers = new Headers(like.headers);
  headers.delete("content-length");
  if (body === undefined || status === 204) {
    headers.delete("content-type");
    return new Response(null, { status, headers });
  }
  headers.set("content-type", contentType ?? "application/json; charset=utf-8");
  return new Response(JSON.stringify(body), { status, headers });
}

function envelope(status: number, message: string, url: string, data?: unknown): Record<string, unknown> {
  return { statusCode: status, statusMessage: message, message, url, error: true, ...(data ? { data } : {}) };
}

const isSuccess = (a: Answer) => a.status < 300;

/** A copy of `body` with the value at `path` set (undefined: taken out). */
export function setAt(body: unknown, path: string, value: unknown): unknown {
  if (path === "") return value;
  const copy = structuredClone(body) as Record<string, unknown>;
  const keys = path.split(".");
  const last = keys.pop() as string;
  let v: Record<string, unknown> = copy;
  for (const k of keys) {
    if (v[k] === null || typeof v[k] !== "object") v[k] = {};
    v = v[k] as Record<string, unknown>;
  }
  if (value === undefined) delete v[last];
  else v[last] = value;
  return copy;
}

/** A value `field` refuses, made from the one the answer holds. */
export function broken(field: Field, value: unknown): unknown {
  if ("holds" in field) return field.breaks(value);
  if ("absent" in field) return "included by the fault";
  if ("present" in field) return undefined;
  const sample = "is" in field ? field.is : field.oneOf[0];
  if (typeof sample === "number") return sample + 1;
  if (typeof sample === "boolean") return !sample;
  if (typeof sample === "string") return `${sample}-changed`;
  if (sample === null) return "not null";
  if (sample === undefined) return "included by the fault";
  return null;
}

const REFUSALS = [403, 404, 400, 409, 401];
const CLIENT_ERRORS = [400, 403, 404, 409];

/** The world the faults of a case read its answers in: the simulator's, with givens left open. */
export function worldOfSim(sim: FaultEnv["sim"]): CaseWorld {
  return faultWorld({ sim, memory: new Map() });
}

/** The case's answers before the run: with givens as wildcards, or, where a value must be read, none. */
function answersBefore(c: Case, w: CaseWorld): readonly Answer[] {
  for (const made of [w.made, {}]) {
    try {
      return answersOf(c, { ...w, made });
    } catch {
      // An expectation computed from what the given made (a list of members): try without it.
    }
  }
  return [];
}

/** Every fault the case gives, its answers read in `w` (worldOfSim), what its givens make from `madeOf`. */
export function faultsOf(c: Case, w: CaseWorld, madeOf: MadeOf = () => undefined): CaseFault[] {
  const op = operationsById().get(c.op);
  if (!op) return [];
  const answers = answersBefore(c, w);
  // A case whose answers cannot be read before its run gives no fault (the self-test names it).
  if (answers.length === 0) return [];
  const out: CaseFault[] = [];
  const add = (kind: CaseFault["kind"], what: string, fault: Fault & { fired(): number }) =>
    out.push({ name: `${c.id} — ${what}`, caseId: c.id, kind, fault, fired: fault.fired });
  const statuses = new Set(answers.map((a) => a.status));
  if (answers.every(isSuccess)) {
    const no = REFUSALS.find((s) => op.statuses.includes(s) && !statuses.has(s)) as number;
    add(
      "refused",
      `refused with ${no}`,
      onCase(c, madeOf, isSuccess, (res, _body, url) =>
        json(no, envelope(no, "Refused by the fault", url), res),
      ),
    );
  }
  if (answers.every((a) => !isSuccess(a))) {
    const yes = op.statuses.find((s) => s >= 200 && s < 300) as number;
    add(
      "accepted",
      `answered ${yes}`,
      onCase(
        c,
        madeOf,
        () => true,
        (res) => json(yes, yes === 204 ? undefined : {}, res),
      ),
    );
    const swap = CLIENT_ERRORS.find((s) => op.statuses.includes(s) && !statuses.has(s));
    if (swap !== undefined)
      add(
        "swapped",
        `answered ${swap} instead`,
        onCase(
          c,
          madeOf,
          () => true,
          (res, body) => json(swap, { ...(body as object), statusCode: swap }, res),
        ),
      );
  }
  answers.forEach((a, i) => {
    // The case's answers are made again from the world on each request: the i-th is this one.
    const only = (_: Answer, index: number) => index === i;
    if (a.message !== undefined)
      add(
        "message",
        `${a.status} in other words`,
        onCase(c, madeOf, only, (res, body) =>
          json(
            a.status,
            { ...(body as object), statusMessage: "Changed by the fault", message: "Changed by the fault" },
            res,
          ),
        ),
      );
    if (a.code !== undefined)
      add(
        "code",
        `${a.status} with another data.code`,
        onCase(c, madeOf, only, (res, body) =>
          json(a.status, setAt(body, "data.code", `${a.code}_CHANGED`), res),
        ),
      );
    if (a.contentType !== undefined)
      add(
        "media",
        `served as another media type`,
        onCase(
          c,
          madeOf,
          only,
          async (res) =>
            new Response(await res.text(), {
              status: res.status,
              headers: { ...Object.fromEntries(res.headers), "content-type": "text/plain" },
            }),
        ),
      );
    for (const [name, field] of Object.entries(a.headers ?? {}))
      add(
        "header",
        `header ${name} broken`,
        onCase(c, madeOf, only, async (res, _body, _url, live) => {
          const value = broken(live.headers?.[name] ?? field, res.headers.get(name) ?? undefined);
          const headers = new Headers(res.headers);
          if (value === undefined || value === null) headers.delete(name);
          else headers.set(name, String(value));
          const bytes = res.status === 204 ? null : await res.arrayBuffer();
          return new Response(bytes, { status: res.status, headers });
        }),
      );
    // No body travels with a 204: there is nothing for a fault to put there.
    for (const [path, field] of Object.entries(a.status === 204 ? {} : (a.fields ?? {})))
      add(
        "field",
        `${path || "the body"} broken`,
        onCase(c, madeOf, only, (res, body, _url, live) =>
          json(
            a.status,
            setAt(body, path, broken(live.fields?.[path] ?? field, at(body, path))),
            res,
            res.headers.get("content-type") ?? undefined,
          ),
        ),
      );
  });
  return out;
}
