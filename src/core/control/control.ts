/**
 * The control plane under `/__sim/` (README, "Control plane"): JSON in and out, errors in the API's
 * envelope. It is not part of openapi.json; the README documents it.
 */

import { ApiError, badRequest, methodNotAllowed } from "../errors.ts";
import { SnapshotError } from "../persistence/snapshot.ts";
import { constantTimeEqual } from "../request/auth.ts";
import { Answer, type Outcome, type SimRequest } from "../request/exchange.ts";
import type { FaultInput, Faults } from "../request/faults.ts";
import { json, renderError } from "../request/render.ts";
import { parseJson, readCapped } from "../request/request-body.ts";
import type { SimConfig } from "../services.ts";
import type { Manifest } from "../world/manifest.ts";
import type { Scenario, ScenarioChoice } from "../world/scenario.ts";
import { ScenarioError, UnknownScenarioError } from "../world/scenario.ts";
import { DASHBOARD_HTML } from "./dashboard/page.ts";
import { type Journal, type JournalFilter, userIdFor } from "./journal.ts";
import type { WorldView } from "./world-view.ts";

/** What the control plane moves: the part of a simulator it needs (the engine passes itself). */
export interface Controlled {
  manifest(): Manifest;
  reset(to?: { scenario?: ScenarioChoice; seed?: number }): Promise<Manifest>;
  load(snapshot: unknown): Manifest;
  snapshotText(): string;
  advance(ms: number): string;
  advanceToNextJob(): string;
  view(): WorldView;
  configure(patch: Partial<SimConfig>): SimConfig;
  readonly config: SimConfig;
  readonly faults: Faults;
  readonly journal: Journal;
}

export interface ControlDeps {
  sim: Controlled;
  /** The built-in scenarios, listed and picked by name. */
  scenarios: readonly Scenario[];
  /** A name or an inline scenario document made a Scenario (src/core/world/scenario.ts, scenarioResolver). */
  resolve: (choice: ScenarioChoice) => Scenario;
  /** Whether `resolve` loads documents (the simulator was handed a loader). */
  documents: boolean;
  /** Tokens any one of which opens the control plane; none: it is open. */
  control: { tokens: readonly string[] };
}

type ControlHandler = (
  body: Record<string, unknown>,
  url: URL,
  deps: ControlDeps,
) => Promise<Outcome> | Outcome;

const MAX_CONTROL_BODY = 64 * 1024;
/** Bodies that carry a world: an inline scenario document, a whole snapshot (the default world's is 7 MB). */
const BODY_CAPS: Readonly<Record<string, number>> = {
  "POST /__sim/reset": 16 * 1024 * 1024,
  "PUT /__sim/snapshot": 64 * 1024 * 1024,
};
/** What `POST /__sim/sandboxes` may carry (an inline scenario). */
export const MAX_WORLD_CHOICE_BODY = BODY_CAPS["POST /__sim/reset"] as number;

const handlers: Record<string, ControlHandler> = {
  "GET /__sim/manifest": (_b, _u, { sim }) => json(200, sim.manifest()),
  "GET /__sim/scenarios": (_b, _u, { scenarios }) =>
    json(
      200,
      scenarios.map((s) => ({ name: s.name, description: s.description })),
    ),
  "POST /__sim/reset": async (body, _u, { sim, resolve, documents }) => {
    await sim.reset(worldChoice(body, resolve, documents));
    return json(200, sim.manifest());
  },
  "GET /__sim/snapshot": (_b, _u, { sim }) =>
    new Answer(200, { "content-type": "application/json; charset=utf-8" }, sim.snapshotText()),
  "PUT /__sim/snapshot": (body, _u, { sim }) => json(200, sim.load(body)),
  "POST /__sim/clock/advance": (body, _u, { sim }) => {
    const ms = optional(body, "ms", "integer");
    const toNextJob = optional(body, "toNextJob", "boolean");
    if (toNextJob === true) return json(200, { now: sim.advanceToNextJob() });
    if (ms === undefined || (ms as number) < 0)
      throw badRequest("ms must be an integer >= 0 (or toNextJob: true)");
    return json(200, { now: sim.advance(ms as number) });
  },
  "GET /__sim/world": (_b, _u, { sim }) => json(200, sim.view()),
  "GET /__sim/config": (_b, _u, { sim }) => json(200, sim.config),
  "PATCH /__sim/config": (body, _u, { sim }) => {
    const rate = optional(body, "rateLimitPerMinute", "integer");
    const latency = optional(body, "latencyMs", "integer");
    if (rate !== undefined && (rate as number) < 1)
      throw badRequest("rateLimitPerMinute must be an integer >= 1");
    if (latency !== undefined && (latency as number) < 0)
      throw badRequest("latencyMs must be an integer >= 0");
    return json(
      200,
      sim.configure({
        ...(rate !== undefined ? { rateLimitPerMinute: rate as number } : {}),
        ...(latency !== undefined ? { latencyMs: latency as number } : {}),
      }),
    );
  },
  "GET /__sim/faults": (_b, _u, { sim }) => json(200, sim.faults.list()),
  "POST /__sim/faults": (body, _u, { sim }) => json(201, sim.faults.add(faultRule(body))),
  "DELETE /__sim/faults": (_b, _u, { sim }) => {
    sim.faults.clear();
    return new Answer(204, {}, null);
  },
  "GET /__sim/requests": (_b, url, { sim }) => json(200, sim.journal.find(journalFilter(url, sim))),
  "DELETE /__sim/requests": (_b, _u, { sim }) => {
    sim.journal.clear();
    return new Answer(204, {}, null);
  },
};

/** `DELETE /__sim/faults/{id}`: disarms one rule. */
function oneFault(method: string, pathname: string): ControlHandler | undefined {
  const m = /^\/__sim\/faults\/([^/]+)$/.exec(pathname);
  if (!m) return undefined;
  if (method !== "DELETE") throw methodNotAllowed(["DELETE"]);
  const id = Number(m[1]);
  return (_b, _u, { sim }) => {
    if (!Number.isSafeInteger(id) || !sim.faults.remove(id)) throw new ApiError(404, `No fault rule ${m[1]}`);
    return new Answer(204, {}, null);
  };
}

/**
 * `GET /__sim/requests?method=&path=&status=&user=&since=&limit=`: `user` is a manifest handle or a user ID,
 * `status` a code or a class (`4xx`), `since` an instant or an entry ID, `path` a glob.
 */
function journalFilter(url: URL, sim: Controlled): JournalFilter {
  const q = url.searchParams;
  const filter: JournalFilter = {};
  const limit = q.get("limit");
  if (limit !== null) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 1000)
      throw badRequest("limit must be an integer from 1 to 1000");
    filter.limit = n;
  } else filter.limit = 100;
  const method = q.get("method");
  if (method !== null) filter.method = method;
  const path = q.get("path");
  if (path !== null) filter.path = path;
  const status = q.get("status");
  if (status !== null) {
    if (!/^[1-5](\d\d|xx)$/i.test(status))
      throw badRequest("status must be a status code (201) or a class (4xx)");
    filter.status = status;
  }
  const user = q.get("user");
  if (user !== null) filter.userId = userIdFor(user, sim.manifest().users);
  const since = q.get("since");
  if (since !== null) {
    if (/^\d+$/.test(since)) filter.since = Number(since);
    else if (Number.isNaN(Date.parse(since)))
      throw badRequest("since must be an entry id or a date-time (2026-01-01T00:00:00Z)");
    else filter.since = since;
  }
  return filter;
}

export async function handleControl(request: SimRequest, url: URL, deps: ControlDeps): Promise<Outcome> {
  // The dashboard's page holds no data, so it is served without the token; it asks for it.
  const page = url.pathname === "/__sim" || url.pathname === "/__sim/";
  if (page && (request.method === "GET" || request.method === "HEAD")) return dashboard();
  try {
    const { tokens } = deps.control;
    const given = request.headers.get("x-sim-control-token");
    if (tokens.length > 0 && (given === null || !tokens.some((t) => constantTimeEqual(given, t)))) {
      throw new ApiError(401, "Missing or wrong x-sim-control-token");
    }
    // HEAD is GET without the body, which the engine drops.
    const method = request.method === "HEAD" ? "GET" : request.method;
    const handler = handlers[`${method} ${url.pathname}`] ?? oneFault(method, url.pathname);
    if (!handler) {
      const allowed = Object.keys(handlers)
        .filter((k) => k.endsWith(` ${url.pathname}`))
        .flatMap((k) => (k.startsWith("GET ") ? ["GET", "HEAD"] : [k.split(" ")[0] as string]));
      throw allowed.length > 0 ? methodNotAllowed(allowed) : new ApiError(404, "Not Found");
    }
    const body = await readObject(request, BODY_CAPS[`${method} ${url.pathname}`] ?? MAX_CONTROL_BODY);
    return await handler(body, url, deps);
  } catch (error) {
    const refusal = error instanceof ApiError ? error : worldRefusal(error);
    if (refusal) return renderError(refusal, url.pathname, {});
    throw error;
  }
}

function dashboard(): Answer {
  return new Answer(
    200,
    {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy":
        "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data: blob:",
    },
    DASHBOARD_HTML,
  );
}

/**
 * A world that cannot be made, as the 400 that says why: every problem of a scenario document (each with its
 * JSON path) in `data.problems`, an unknown scenario name with the known ones, a snapshot's defect.
 */
export function worldRefusal(error: unknown): ApiError | null {
  if (error instanceof ScenarioError) return badRequest(error.message, { problems: error.problems });
  if (error instanceof UnknownScenarioError) return badRequest(error.message, { known: error.known });
  if (error instanceof SnapshotError)
    return badRequest(
      `Invalid snapshot: ${error.message}`,
      error.problems.length > 0 ? { problems: error.problems } : undefined,
    );
  return null;
}

/** The `controlToken` option as a list: none (the control plane is open), one, or any one of several. */
export function tokenList(token: string | readonly string[] | null | undefined): readonly string[] {
  return token == null ? [] : typeof token === "string" ? [token] : token;
}

/**
 * `{ scenario?, seed? }` of a reset or a new sandbox, checked: a name or a scenario document (when `resolve`
 * loads documents), resolved here, before anything is made from it. An unknown name is a 400 naming the
 * known ones, a document with problems a 400 listing them.
 */
export function worldChoice(
  body: Record<string, unknown>,
  resolve: (choice: ScenarioChoice) => Scenario,
  documents: boolean,
): { scenario?: Scenario; seed?: number } {
  const raw = body.scenario;
  const seed = optional(body, "seed", "integer");
  if (seed !== undefined && ((seed as number) < 0 || (seed as number) > 0xffffffff)) {
    throw badRequest("seed must be an integer from 0 to 4294967295");
  }
  const isDocument = documents && raw !== null && typeof raw === "object" && !Array.isArray(raw);
  if (raw !== undefined && typeof raw !== "string" && !isDocument)
    throw badRequest(
      documents
        ? "scenario must be a built-in scenario's name or a scenario document (an object)"
        : "scenario must be a string",
    );
  let scenario: Scenario | undefined;
  try {
    scenario = raw === undefined ? undefined : resolve(raw as ScenarioChoice);
  } catch (error) {
    throw worldRefusal(error) ?? error;
  }
  return {
    ...(scenario !== undefined ? { scenario } : {}),
    ...(seed !== undefined ? { seed: seed as number } : {}),
  };
}

/** A control request's body: `{}` when absent, 400 unless a JSON object within `max` bytes (64 KiB). */
export async function readObject(
  request: SimRequest,
  max: number = MAX_CONTROL_BODY,
): Promise<Record<string, unknown>> {
  if (request.method === "GET" || request.method === "HEAD") return {};
  const raw = await readCapped(request, max);
  if (!raw.present) return {};
  const value = parseJson(raw.text);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw badRequest("Body must be a JSON object");
  return value as Record<string, unknown>;
}

function optional(
  body: Record<string, unknown>,
  key: string,
  type: "string" | "integer" | "number" | "boolean",
): unknown {
  if (!Object.hasOwn(body, key) || body[key] === undefined) return undefined;
  const v = body[key];
  const ok =
    type === "integer" ? Number.isSafeInteger(v) : type === "number" ? Number.isFinite(v) : typeof v === type;
  if (!ok) throw badRequest(`${key} must be ${type === "integer" ? "an integer" : `a ${type}`}`);
  return v;
}

function faultRule(body: Record<string, unknown>): FaultInput {
  const rule: FaultInput = {};
  const method = optional(body, "method", "string");
  const path = optional(body, "path", "string");
  const status = optional(body, "status", "integer");
  const delayMs = optional(body, "delayMs", "integer");
  const times = optional(body, "times", "integer");
  const probability = optional(body, "probability", "number");
  if (method !== undefined) rule.method = (method as string).toUpperCase();
  if (path !== undefined) rule.path = path as string;
  if (status !== undefined) {
    if ((status as number) < 100 || (status as number) > 599)
      throw badRequest("status must be an HTTP status 100-599");
    rule.status = status as number;
  }
  if (delayMs !== undefined) {
    if ((delayMs as number) < 0 || (delayMs as number) > 60_000) throw badRequest("delayMs must be 0-60000");
    rule.delayMs = delayMs as number;
  }
  if (times !== undefined) {
    if ((times as number) < 1) throw badRequest("times must be an integer >= 1");
    rule.times = times as number;
  }
  if (probability !== undefined) {
    if ((probability as number) < 0 || (probability as number) > 1)
      throw badRequest("probability must be 0-1");
    rule.probability = probability as number;
  }
  if (rule.status === undefined && rule.delayMs === undefined)
    throw badRequest("A fault rule needs status or delayMs");
  return rule;
}
