/** What every fault case is, and the helpers several of them use to break a request or an answer. */
import type { CheckDef } from "../lib/running/context.ts";
import { editJson, type Fault, type FaultEnv, type HttpLayer, pathOf } from "./harness.ts";

export interface FaultCase {
  name: string;
  fault: Fault;
  /** The HTTP layer in front of it (the project's host unless said). */
  layer?: HttpLayer;
  checks: CheckDef[];
  /** The check (name prefix) that must report it. */
  reportedBy: string;
}

/**
 * Cases, by name, that `checks` must report: each fault breaks one rule. The reporting check is the
 * first one unless `reportedBy` names another (generic checks report under finer names, such as
 * `response/schema`).
 */
export function casesOf(checks: CheckDef | CheckDef[], cases: Record<string, Fault>): FaultCase[];
export function casesOf(
  checks: CheckDef | CheckDef[],
  reportedBy: string,
  cases: Record<string, Fault>,
): FaultCase[];
export function casesOf(
  checks: CheckDef | CheckDef[],
  ...rest: [Record<string, Fault>] | [string, Record<string, Fault>]
): FaultCase[] {
  const list = Array.isArray(checks) ? checks : [checks];
  const [reportedBy, cases] = rest.length === 2 ? rest : [list[0]!.name, rest[0]];
  return Object.entries(cases).map(([name, fault]) => ({ name, checks: list, reportedBy, fault }));
}

/** The same case behind another HTTP layer than the project's host. */
export const behind = (layer: HttpLayer, cases: FaultCase[]): FaultCase[] =>
  cases.map((c) => ({ ...c, layer }));

/** Which answers a fault changes: those to `method` on a path `re` matches, with `status` when given. */
export const on =
  (method: string, re: RegExp, status?: number) =>
  (req: Request, res: Response): boolean =>
    is(req, method, re) && (status === undefined || res.status === status);

/** A fault that edits the JSON of the answers `match` picks and passes every other answer through. */
export const editWhen =
  (match: (req: Request, res: Response) => boolean, edit: Parameters<typeof editJson>[1]): Fault =>
  async (req, next) => {
    const res = await next(req);
    return match(req, res) ? editJson(res, edit) : res;
  };

export const isV1 = (req: Request) => /^\/(api\/)?v1\//.test(pathOf(req));
export const is = (req: Request, method: string, re: RegExp) => req.method === method && re.test(pathOf(req));
export const AUD = "[0-9a-f-]{36}";

export async function bodyOf(req: Request): Promise<{ req: Request; json: unknown }> {
  const text = await req.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { req: new Request(req.url, { method: req.method, headers: req.headers, body: text }), json };
}

/** Another request as the caller of `req` (its key), with a JSON body when given: what a fault does on the side. */
export function asCaller(req: Request, url: string | URL, method = "GET", json?: unknown): Request {
  const headers: Record<string, string> = { authorization: req.headers.get("authorization") ?? "" };
  if (json === undefined) return new Request(url, { method, headers });
  headers["content-type"] = "application/json";
  return new Request(url, { method, headers, body: JSON.stringify(json) });
}

export function withBody(req: Request, json: unknown): Request {
  return new Request(req.url, { method: req.method, headers: req.headers, body: JSON.stringify(json) });
}

/** How long after a finished state was first served a "regresses later" fault starts to undo it. */
const LATER_MS = 10_000;

/**
 * Whether a finished state first served at the virtual time remembered under `key` is now old enough for a
 * fault to undo it: the first call remembers the time, later ones answer true ten seconds of the
 * simulator's clock on (a deployment run re-reads a few real seconds later). A kit that never reads a
 * finished machine again, late, never sees the fault.
 */
export function servedLongAgo(env: FaultEnv, key: string): boolean {
  const seen = env.memory.get(`finished:${key}`) as number | undefined;
  const now = env.sim.clock.now();
  if (seen === undefined) env.memory.set(`finished:${key}`, now);
  return seen !== undefined && now - seen >= LATER_MS;
}
