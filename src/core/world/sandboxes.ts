/**
 * Sandboxes (README, "Sandboxes"): many isolated worlds behind one URL, for partners who each want a
 * world nobody else can reset under them.
 *
 * Each sandbox is a whole engine of its own (world, clock, faults, rate limits, journal, config), built by
 * the host's `create`, so nothing one partner does can reach another. What makes the one URL work is the
 * API key: a sandbox's keys begin `service_sbx_<id>_`, so a request finds its world by the key alone, and a
 * proxy in front of several processes finds the process by the same characters (the ID's first part names
 * the instance that made it). Pages outside the contract (a buyer's checkout link) carry no key and live
 * under `/sandboxes/<id>/`; the control plane of one sandbox is `/__sim/sandboxes/<id>/…`, opened by that
 * sandbox's own token or the operator's. Anything else, and every key that names no live sandbox, goes
 * to the default world, exactly as without sandboxes.
 */

import { MAX_WORLD_CHOICE_BODY, readObject, worldChoice, worldRefusal } from "../control/control.ts";
import type { Simulator } from "../engine.ts";
import { ApiError, methodNotAllowed } from "../errors.ts";
import { bearerKey, constantTimeEqual } from "../request/auth.ts";
import { Answer, type Outcome, promised, type SimRequest, toResponse } from "../request/exchange.ts";
import { json, renderError } from "../request/render.ts";
import type { Manifest } from "./manifest.ts";
import { type Scenario, type ScenarioChoice, type ScenarioLoader, scenarioResolver } from "./scenario.ts";

export const SANDBOX_KEY_PREFIX = "service_sbx_";
/** `[instance-]` then 12 random characters of base32: short, unguessable enough, and path- and key-safe. */
const ID = "(?:[a-z0-9]{1,16}-)?[a-z2-7]{12}";
const KEY_ID = new RegExp(`^${SANDBOX_KEY_PREFIX}(${ID})_`);
const PAGE_PATH = new RegExp(`^/sandboxes/(${ID})(/.*)$`);
const CONTROL_PATH = new RegExp(`^/__sim/sandboxes/(${ID})(/.*)?$`);
/** What `--instance` may be: it stands at the front of IDs, keys and paths. */
export const INSTANCE_NAME = /^[a-z0-9]{1,16}$/;

/** Whether `id` has the form of a sandbox ID (what a saved registry may name). */
export function isSandboxId(id: string): boolean {
  return WHOLE_ID.test(id);
}
const WHOLE_ID = new RegExp(`^${ID}$`);

/** The sandbox a key belongs to (by its form alone), or null: what a proxy reads too. */
export function sandboxOfKey(key: string): string | null {
  return KEY_ID.exec(key)?.[1] ?? null;
}

export interface SandboxRecord {
  id: string;
  controlToken: string;
  /** The scenario's name (a built-in's, or a document's `name`). */
  scenario: string;
  /** The scenario document the sandbox was made from, when it was one: what a restart builds it from. */
  document?: unknown;
  seed: number;
  /** Wall-clock epoch ms: lifetimes are the operator's real time, not any world's virtual time. */
  createdAt: number;
  lastUsedAt: number;
}

/** What a host is asked to build: an engine for these keys and pages, from a scenario or a saved state. */
export interface SandboxSpec {
  id: string;
  /** The sandbox's own control token: its engine's control plane opens to it (and to the operator's). */
  controlToken: string;
  keyPrefix: string;
  pageBase: string;
  /** A built-in scenario's name, a scenario (a loaded document), or a saved document to load. */
  scenario: ScenarioChoice;
  seed: number;
}

/** The engine a sandbox of this ID, scenario and seed is built as (also when it is brought back). */
export function sandboxSpec(
  r: Pick<SandboxRecord, "id" | "controlToken" | "seed"> & {
    scenario: string | Scenario;
    document?: unknown;
  },
): SandboxSpec {
  return {
    id: r.id,
    controlToken: r.controlToken,
    keyPrefix: `${SANDBOX_KEY_PREFIX}${r.id}_`,
    pageBase: `/sandboxes/${r.id}`,
    // A sandbox made from a document is made from it again (a restart with no snapshot of it yet).
    scenario: r.document !== undefined ? (r.document as object) : r.scenario,
    seed: r.seed,
  };
}

export interface SandboxHostOptions {
  /** The default world: everything that names no sandbox. */
  main: Pick<Simulator, "respond" | "manifest">;
  /**
   * Builds a sandbox's engine, its control plane opened by the spec's token or the operator's. This file
   * answers anyone else 404 before the engine would say 401, so that a sandbox's existence stays hidden.
   */
  create(spec: SandboxSpec): SandboxEngine;
  /** The built-in scenarios; the first is what a sandbox naming none is made of. */
  scenarios: readonly Scenario[];
  /** Loads an inline scenario document of `POST /__sim/sandboxes`. */
  load?: ScenarioLoader;
  /** The control plane: off means no sandbox endpoint at all; `tokens` are the operator's (none: open). */
  control: { enabled: boolean; tokens: readonly string[] };
  /** Past this many, creating one is refused with 429 (default 100). */
  maxSandboxes?: number;
  /** A sandbox unused for this long is deleted (default: never). */
  idleTtlMs?: number | null;
  /** Names this process in every ID it makes, so a proxy can route by ID to the process that holds it. */
  instance?: string | null;
  wall: () => number;
  /** Told before a creation or deletion is answered, to save it (a host with a state file). */
  onCreated?(record: SandboxRecord, sim: SandboxEngine): Promise<void> | void;
  onDeleted?(id: string): Promise<void> | void;
}

/** What this file needs of a sandbox's engine (a host saving it needs `checkpoint` too). */
export type SandboxEngine = Pick<Simulator, "handle" | "respond" | "manifest" | "ready" | "checkpoint">;

interface Live {
  record: SandboxRecord;
  sim: SandboxEngine;
}

export class SandboxHost {
  private readonly live = new Map<string, Live>();
  private lastSweep = 0;
  private creating = 0;

  private readonly options: SandboxHostOptions;
  constructor(options: SandboxHostOptions) {
    this.options = options;
    if (options.instance != null && !INSTANCE_NAME.test(options.instance))
      throw new Error("instance must be 1 to 16 characters a-z and 0-9");
  }

  get size(): number {
    return this.live.size;
  }

  manifest(): Manifest {
    return this.options.main.manifest();
  }

  fetch = async (request: Request): Promise<Response> => toResponse(await this.handle(request));

  handle = (request: SimRequest): Promise<Outcome> => promised(this.respond, request);

  /** `handle`, with an answer ready in this turn given as itself (`Simulator.respond`). */
  respond = (request: SimRequest): Outcome | Promise<Outcome> => {
    // With no sandbox alive (the common case) the default world's requests take no step more than they
    // would without sandboxes: no parse, no await.
    if (this.live.size === 0 && !request.url.includes("/sandboxes"))
      return this.options.main.respond(request);
    if (this.sweepDue()) return this.sweep().then(() => this.route(request));
    return this.route(request);
  };

  private route(request: SimRequest): Outcome | Promise<Outcome> {
    // An API request names no sandbox path and no control plane: its key alone routes it, with no parse.
    if (!request.url.includes("/sandboxes") && !request.url.includes("/__sim")) return this.byKey(request);
    return this.byPath(request);
  }

  private byKey(request: SimRequest): Outcome | Promise<Outcome> {
    const key = bearerKey(request.headers.get("authorization"));
    const id = key === null ? null : sandboxOfKey(key);
    // A key of no live sandbox is no key of the default world either: it gets that world's 401.
    const sb = id === null ? undefined : this.touch(id);
    return (sb ? sb.sim : this.options.main).respond(request);
  }

  private async byPath(request: SimRequest): Promise<Outcome> {
    const url = URL.parse(request.url);
    if (url === null) return this.options.main.respond(request);
    const path = url.pathname;
    if (path === "/__sim/sandboxes" || path.startsWith("/__sim/sandboxes/")) {
      try {
        return await this.control(request, url);
      } catch (error) {
        if (error instanceof ApiError) return renderError(error, path, {});
        throw error;
      }
    }
    const page = PAGE_PATH.exec(path);
    if (page) {
      const rest = page[2] as string;
      // The sandbox's own control plane answers only under /__sim/sandboxes/<id>/, behind its token.
      const sb = rest === "/__sim" || rest.startsWith("/__sim/") ? undefined : this.touch(page[1] as string);
      if (!sb) return renderError(new ApiError(404, "Not Found"), path, {});
      return sb.sim.respond(moved(request, url, rest));
    }
    if (path !== "/__sim" && !path.startsWith("/__sim/")) return this.byKey(request);
    return this.options.main.respond(request);
  }

  /** Adds a sandbox brought back from saved state (a restart), as it was. */
  adopt(record: SandboxRecord, sim: Live["sim"]): void {
    this.live.set(record.id, { record, sim });
  }

  /**
   * Deletes every sandbox idle past the TTL. Runs at most once a second (or once a TTL, when that is
   * shorter) however often it is called.
   */
  async sweep(): Promise<void> {
    const ttl = this.options.idleTtlMs;
    if (ttl == null || !this.sweepDue()) return;
    const now = this.options.wall();
    this.lastSweep = now;
    for (const [id, sb] of this.live) if (now - sb.record.lastUsedAt > ttl) await this.remove(id);
  }

  private sweepDue(): boolean {
    const ttl = this.options.idleTtlMs;
    return ttl != null && this.options.wall() - this.lastSweep >= Math.min(1000, ttl);
  }

  private touch(id: string): Live | undefined {
    const sb = this.live.get(id);
    if (sb) sb.record.lastUsedAt = this.options.wall();
    return sb;
  }

  private async remove(id: string): Promise<void> {
    if (!this.live.delete(id)) return;
    await this.options.onDeleted?.(id);
  }

  private async control(request: SimRequest, url: URL): Promise<Outcome> {
    const { control } = this.options;
    if (!control.enabled) throw new ApiError(404, "Not Found");
    const path = url.pathname;
    const token = request.headers.get("x-sim-control-token");
    const open = control.tokens.length === 0;
    const operator = token !== null && control.tokens.some((t) => constantTimeEqual(token, t));
    if (path === "/__sim/sandboxes" || path === "/__sim/sandboxes/") {
      if (!open && !operator) throw new ApiError(401, "Missing or wrong x-sim-control-token");
      if (request.method === "POST") return this.create(await readObject(request, MAX_WORLD_CHOICE_BODY));
      if (request.method === "GET" || request.method === "HEAD")
        return json(
          200,
          [...this.live.values()].map((sb) => this.describe(sb.record)),
        );
      throw methodNotAllowed(["GET", "HEAD", "POST"]);
    }
    const m = CONTROL_PATH.exec(path);
    const sb = m ? this.live.get(m[1] as string) : undefined;
    // Another sandbox's token, or none, learns nothing: not even that this one exists.
    if (!sb || !(operator || (token !== null && constantTimeEqual(token, sb.record.controlToken))))
      throw new ApiError(404, "Not Found");
    sb.record.lastUsedAt = this.options.wall();
    const rest = m?.[2] ?? "";
    if (rest === "" || rest === "/") {
      if (request.method === "DELETE") {
        await this.remove(sb.record.id);
        return new Answer(204, {}, null);
      }
      if (request.method === "GET" || request.method === "HEAD") {
        await sb.sim.ready;
        return json(200, { ...this.describe(sb.record), manifest: sb.sim.manifest() });
      }
      throw methodNotAllowed(["GET", "HEAD", "DELETE"]);
    }
    return sb.sim.handle(moved(request, url, `/__sim${rest}`));
  }

  private async create(body: Record<string, unknown>): Promise<Outcome> {
    const { options } = this;
    const choice = worldChoice(
      body,
      scenarioResolver(options.scenarios, options.load),
      options.load !== undefined,
    );
    const max = options.maxSandboxes ?? 100;
    // Creations under way count too: two at once must not both pass the limit while their worlds build.
    if (this.live.size + this.creating >= max)
      throw new ApiError(429, `At most ${max} sandboxes may exist at once; delete one first`);
    this.creating++;
    try {
      return await this.make(choice);
    } finally {
      this.creating--;
    }
  }

  private async make(choice: { scenario?: Scenario; seed?: number }): Promise<Outcome> {
    const { options } = this;
    let id = newId(options.instance ?? null);
    while (this.live.has(id)) id = newId(options.instance ?? null);
    const scenario = choice.scenario ?? options.scenarios[0];
    if (!scenario) throw new ApiError(400, "This simulator has no scenario to make a sandbox of");
    const seed = choice.seed ?? scenario.seed ?? 1;
    const controlToken = `sbt_${randomChars(32, TOKEN_ALPHABET)}`;
    const sim = options.create(sandboxSpec({ id, controlToken, scenario, seed }));
    try {
      await sim.ready;
    } catch (error) {
      // A document that builds at its own seed may still fail at another, or in its setup.
      throw worldRefusal(error) ?? error;
    }
    const now = options.wall();
    const document = scenario.document;
    const record: SandboxRecord = {
      id,
      controlToken,
      scenario: scenario.name,
      ...(document !== undefined ? { document } : {}),
      seed,
      createdAt: now,
      lastUsedAt: now,
    };
    this.live.set(id, { record, sim });
    try {
      await options.onCreated?.(record, sim);
    } catch (error) {
      this.live.delete(id);
      throw error;
    }
    return json(201, { id, controlToken: record.controlToken, manifest: sim.manifest() });
  }

  private describe(r: SandboxRecord) {
    const now = this.options.wall();
    return {
      id: r.id,
      scenario: r.scenario,
      seed: r.seed,
      createdAt: new Date(r.createdAt).toISOString(),
      lastUsedAt: new Date(r.lastUsedAt).toISOString(),
      ageSeconds: Math.floor((now - r.createdAt) / 1000),
      idleSeconds: Math.floor((now - r.lastUsedAt) / 1000),
    };
  }
}

/** The same request with another path (the query kept), for the sandbox's own engine. */
function moved(request: SimRequest, url: URL, path: string): SimRequest {
  return {
    method: request.method,
    url: `${url.origin}${path}${url.search}`,
    headers: request.headers,
    // Read only when the sandbox's engine asks: a host may make its body stream and its signal (an
    // AbortController) on first use, and most requests never ask for either.
    get body() {
      return request.body;
    },
    get signal() {
      return request.signal;
    },
    ...(request.bodyBytes ? { bodyBytes: request.bodyBytes } : {}),
  };
}

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function newId(instance: string | null): string {
  const random = randomChars(12, ID_ALPHABET);
  return instance ? `${instance}-${random}` : random;
}

/** Unpredictable (Web Crypto, in every runtime the core runs in), unlike the worlds' seeded streams. */
function randomChars(n: number, alphabet: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  let out = "";
  // 256 is a multiple of 32 (IDs); for 62 (tokens) the slight bias does not matter for a test token.
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}
