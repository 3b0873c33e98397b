import { LIMITS } from "../contract/limits.ts";
import { type Operation, operations } from "../contract/operations.ts";
import { authenticate } from "./auth.ts";
import type { BodyResult } from "./body.ts";
import type { Change, RequestChange } from "./changes.ts";
import { buildContext, readBody, takeBody } from "./context.ts";
import { handleControl, tokenList } from "./control.ts";
import { ApiError, methodNotAllowed, unauthorized } from "./errors.ts";
import { Answer, LineStream, type Outcome, type SimRequest, toResponse } from "./exchange.ts";
import { Faults } from "./faults.ts";
import { Journal, type JournalEntry, journalApi } from "./journal.ts";
import { keysOutOfReach, verifyKept } from "./kept-answers.ts";
import type { Manifest } from "./manifest.ts";
import { StateMemo } from "./memo.ts";
import { collectModules } from "./modules.ts";
import { checkBody } from "./params.ts";
import { parsePrefer, preferredResponse } from "./prefer.ts";
import { createRng } from "./prng.ts";
import { RateLimiter, rateHeaders } from "./ratelimit.ts";
import { ListedHeaders, Recorder, RecordingHeaders, worldMark } from "./recorder.ts";
import { isResponse, renderError, renderReply } from "./render.ts";
import type { Reply, RequestContext, RouteSpec, SimConfig } from "./route.ts";
import { Router } from "./router.ts";
import { DEFAULT_START, runSetup, type Scenario, type SetupStep, scenarioResolver } from "./scenario.ts";
import type { ResetTo, Served, Simulator, SimulatorOptions } from "./simulator-api.ts";
import { checkSnapshot, encodeSnapshot, type Snapshot } from "./snapshot.ts";
import { buildWorld, restoreWorld, snapshotOf, type World, type WorldDeps } from "./world.ts";
import { worldView } from "./world-view.ts";

export type { Served, Simulator, SimulatorOptions } from "./simulator-api.ts";
export { DEFAULT_START };

const router = new Router(operations);

/**
 * The simulator's engine: the contract's routes, authentication, rate limits, the control plane, the
 * virtual clock and change recording, over whatever resources and scenarios it is handed.
 */
export function createEngine(options: SimulatorOptions & Served): Simulator {
  const wall = options.wallClock ?? (() => performance.timeOrigin + performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const { routes, jobs, inits, outside, views } = collectModules(options.resources);
  const scenarios = options.scenarios;
  const defaultScenario = scenarios[0]?.name ?? "default";
  const config: SimConfig = {
    rateLimitPerMinute: options.rateLimitPerMinute ?? LIMITS.rateLimitPerMinute,
    latencyMs: options.latencyMs ?? 0,
  };
  const control = { enabled: options.control ?? true, tokens: tokenList(options.controlToken) };
  const limiter = new RateLimiter();
  const journal = new Journal();
  const memo = new StateMemo();
  let faults = new Faults(createRng(options.seed ?? 1).fork("faults"));
  let latencyRng = createRng(options.seed ?? 1).fork("latency");
  let preferCount = 0;
  let world: World;
  /** While a scenario's setup runs (setUp): what every other request waits for. */
  let setupDone: Promise<void> | null = null;
  const sink = options.changes;
  const recorder = new Recorder(sink);
  const record = (change: Change, durable: boolean): void => recorder.record(change, durable);
  const changing = <T>(step: () => Promise<T>): Promise<T> => recorder.changing(step);

  const deps: WorldDeps = {
    clockMode: options.clock ?? "manual",
    startTime: options.startTime ?? DEFAULT_START,
    wall,
    config,
    jobs,
    inits,
    memo,
    vet: options.vetSnapshot,
    keyPrefix: options.keyPrefix ?? "service_",
    pageBase: options.pageBase ?? "",
  };

  /** Everything kept beside the world starts over with it. */
  const startOver = (next: World): void => {
    world = next;
    memo.touch();
    limiter.reset();
    journal.clear();
    faults = new Faults(createRng(next.manifest.seed).fork("faults"));
    latencyRng = createRng(next.manifest.seed).fork("latency");
    preferCount = 0;
  };

  const resolve = scenarioResolver(scenarios, options.loadScenario);
  let own: Scenario | undefined;
  /** The scenario of the options: what a reset naming none makes. Resolved at once unless a snapshot starts. */
  const ownScenario = (): Scenario => {
    own ??= resolve(options.scenario ?? defaultScenario);
    return own;
  };
  if (!options.snapshot) ownScenario();

  /** A new world of `scenario`, its setup made; the world there was stays if either fails. */
  const build = async (scenario: Scenario, seed: number): Promise<Manifest> => {
    const next = await buildWorld(deps, scenario, seed);
    // Building a large scenario takes real time; it must not pass as simulated time.
    next.clock.rebase();
    if (scenario.setup?.length) await setUp(next, scenario.setup);
    startOver(next);
    return world.manifest;
  };

  const reset = async (to: ResetTo = {}): Promise<Manifest> => {
    const scenario = to.scenario !== undefined ? resolve(to.scenario) : ownScenario();
    const seed =
      to.seed ??
      (to.scenario !== undefined ? scenario.seed : undefined) ??
      options.seed ??
      scenario.seed ??
      1;
    const manifest = await build(scenario, seed);
    const document = scenario.document === undefined ? {} : { document: scenario.document };
    record({ kind: "reset", scenario: scenario.name, seed, ...document }, true);
    if (to.adopt) own = scenario;
    return manifest;
  };

  const restore = (saved: Snapshot, own = false): void => {
    const restored = restoreWorld(own ? { ...deps, vet: undefined } : deps, saved);
    config.rateLimitPerMinute = restored.config.rateLimitPerMinute;
    config.latencyMs = restored.config.latencyMs;
    startOver(restored.world);
  };

  /** `PUT /__sim/snapshot`: a saved world in place of this one, recorded whole. */
  const load = (saved: unknown): Manifest => {
    const snap = checkSnapshot(saved);
    restore(snap);
    record({ kind: "restore", snapshot: snap }, true);
    return manifest();
  };

  const initial = options.snapshot;
  const ready = (
    initial
      ? Promise.resolve().then(() => restore(initial, options.snapshotIsOwn === true))
      : build(ownScenario(), options.seed ?? ownScenario().seed ?? 1)
  ).then(() => undefined);
  // Once built, a request need not wait a turn of microtasks on `ready` (a few hundred ns, on every request).
  // Whoever waits for `ready` sees a failed build; nobody waiting is no unhandled rejection.
  let built = false;
  ready.then(
    () => {
      built = true;
    },
    () => {},
  );

  const manifest = (): Manifest => ({ ...world.manifest, now: world.clock.nowIso() });

  const sim: Simulator = {
    ready,
    manifest,
    reset,
    load,
    snapshot: () => structuredClone(snapshotOf(world, config)),
    snapshotText: () => encodeSnapshot(snapshotOf(world, config)),
    restore,
    advance: (ms) => {
      memo.touch();
      const at = world.clock.now();
      world.clock.advance(ms);
      record({ kind: "advance", at, ms }, true);
      return world.clock.nowIso();
    },
    advanceToNextJob: () => {
      const next = world.clock.pending()[0];
      return sim.advance(next ? Math.max(0, next.at - world.clock.now()) : 0);
    },
    configure: (patch) => {
      if (patch.rateLimitPerMinute !== undefined) config.rateLimitPerMinute = patch.rateLimitPerMinute;
      if (patch.latencyMs !== undefined) config.latencyMs = patch.latencyMs;
      record(
        { kind: "config", rateLimitPerMinute: config.rateLimitPerMinute, latencyMs: config.latencyMs },
        true,
      );
      return config;
    },
    replay,
    view: () => worldView(world.services, views),
    ...journalApi(journal, () => world.manifest.users),
    checkpoint: (take) => recorder.between(() => take(snapshotOf(world, config))),
    // Code outside the core (tests, a host) may change what it takes hold of, when the core cannot see it.
    get state() {
      memo.touch();
      return world.state;
    },
    get clock() {
      memo.touch();
      return world.clock;
    },
    get faults() {
      return faults;
    },
    config,
    journal,
    fetch: async (request) => toResponse(await handle(request)),
    handle,
  };

  async function handle(request: SimRequest): Promise<Outcome> {
    if (!built) await ready;
    while (setupDone) await setupDone;
    const started = wall();
    const url = URL.parse(request.url);
    // Only a host that passes its own target can get here with one that is not a URL.
    if (url === null) return renderError(new ApiError(400, "Bad Request"), "", {});
    // Read once: each read of a URL's pathname makes a new string.
    const pathname = url.pathname;
    const who: Who = { userId: null, pure: false, keysOnly: false, body: null };
    let response: Outcome;
    const reads = request.method === "GET" || request.method === "HEAD";
    try {
      const ran = world.clock.ran;
      const at = world.clock.runDue();
      if (world.clock.ran !== ran) record({ kind: "time", at }, false);
      if (pathname === "/__sim" || pathname.startsWith("/__sim/")) {
        const deps = { sim, scenarios, control, resolve, documents: options.loadScenario !== undefined };
        response = !control.enabled
          ? renderError(new ApiError(404, "Not Found"), pathname, {})
          : reads
            ? await handleControl(request, url, deps)
            : await changing(() => handleControl(request, url, deps));
      } else {
        // Only a path a page claims takes the page's way (for a write, its own turn in the serial section).
        const claimed = outside.some((o) => o.claims(pathname));
        const page = !claimed
          ? null
          : reads
            ? await serveOutside(request, url)
            : await changing(() => changeOutside(request, url, undefined));
        response = page ?? (await serveApi(request, url, pathname, who));
      }
    } catch (error) {
      if (request.signal.aborted) {
        // The client went away mid-request (reading its body failed): not a bug, and nobody reads this.
        response = renderError(new ApiError(499, "Client Closed Request"), pathname, {});
      } else {
        options.onError?.(error, { method: request.method, path: pathname });
        response = renderError(new ApiError(500), pathname, {});
      }
    }
    if (!who.pure && !who.keysOnly) memo.touch();
    const entry: JournalEntry = {
      at: world.clock.nowIso(),
      method: request.method,
      path: pathname,
      status: response.status,
      ms: Math.round((wall() - started) * 100) / 100,
      userId: who.userId,
    };
    if (!reads || !pathname.startsWith("/__sim"))
      journal.add(entry, url.search, request.headers, who.body, response);
    options.onRequest?.(entry);
    if (request.method !== "HEAD") return response;
    // A HEAD answer has no body; stop whatever would have produced one.
    if (response instanceof Answer) return response.withoutBody();
    if (response instanceof LineStream) {
      response.stop();
      return new Answer(response.status, response.headers, null);
    }
    await response.body?.cancel().catch(() => {});
    return new Response(null, response);
  }

  async function serveOutside(request: SimRequest, url: URL): Promise<Outcome | null> {
    for (const page of outside) {
      if (!page.claims(url.pathname)) continue;
      const res = await page.serve(request, url, world.services);
      if (res) return res;
    }
    return null;
  }

  /** A page outside the contract that may change the world (the buyer's checkout form), as one change. */
  async function changeOutside(
    request: SimRequest,
    url: URL,
    at: number | undefined,
  ): Promise<Outcome | null> {
    const mark = sink ? worldMark(world) : "";
    const t = world.clock.settle(at);
    let page: Outcome | null = null;
    try {
      page = await serveOutside(request, url);
      return page;
    } finally {
      world.clock.release();
      if (page && (page.status < 400 || worldMark(world) !== mark)) {
        // The pages read no header and no body: what they change follows from the path alone.
        record(
          {
            kind: "request",
            at: t,
            method: request.method,
            url: request.url,
            keyId: null,
            headers: [],
            body: null,
          },
          true,
        );
      }
    }
  }

  async function serveApi(request: SimRequest, url: URL, path: string, who: Who): Promise<Outcome> {
    const match = router.match(request.method, path);
    if (match.kind === "not-found") return renderError(new ApiError(404, "Not Found"), path, {});
    if (match.kind === "method-not-allowed") {
      return renderError(methodNotAllowed(match.allowed), path, {});
    }
    const { op, params, prefix } = match;
    const headers: Record<string, string> = op.isPrivate ? { "cache-control": "private, no-store" } : {};
    try {
      const fault = faults.take(request.method, path);
      if (fault?.delayMs) await sleep(fault.delayMs);
      if (fault?.status) throw new ApiError(fault.status, `Injected fault (rule ${fault.id})`);
      const found = op.authenticated ? authenticate(world.state, request.headers.get("authorization")) : null;
      const caller = found instanceof Promise ? await found : found;
      if (op.authenticated && !caller) {
        // No account, so nothing is counted; the headers still say where the ceiling is.
        if (op.rateLimited)
          Object.assign(headers, rateHeaders(config.rateLimitPerMinute, config.rateLimitPerMinute));
        throw unauthorized();
      }
      if (caller) {
        who.userId = caller.user.id;
        caller.key.lastUsedAt = world.clock.now();
        if (op.rateLimited) applyRateLimit(caller.user.id, headers);
      }
      const prefer = request.headers.get("prefer");
      if (prefer !== null) {
        // Prism-style control (code=, example=, dynamic=): after auth and rate limit, instead of the handler.
        const prefs = parsePrefer(prefer);
        if (prefs) {
          await delay();
          return await preferredResponse(op, prefs, {
            path,
            accept: request.headers.get("accept"),
            headers,
            generateBody: options.generateBody,
            seed: `${options.seed ?? 1}:${preferCount++}`,
          });
        }
      }
      const spec = routes.get(op.operationId);
      if (!spec) throw new ApiError(501, `${op.operationId} is not simulated yet`);
      // A change is recorded with the headers it was served with (the credentials apart).
      const recorded = sink && spec.pure !== true ? new RecordingHeaders(request.headers) : null;
      const ctx = buildContext(world.services, request, url, op, params, prefix, caller, spec, recorded);
      spec.authorize?.(ctx);
      // A read has no body to wait for, and without latency there is nothing to wait on: no await for them.
      const body = readBody(ctx, op);
      const raw = body instanceof Promise ? await body : body;
      if (raw.present) who.body = raw.text;
      checkBody(ctx, op, spec);
      if (config.latencyMs !== 0) await delay();
      // Asked last, with nothing awaited between it and a pure handler: the state it saw is the one served.
      const pure = spec.pure === true || spec.pure?.(ctx);
      if (pure) {
        who.pure = true;
        const reused = !spec.volatile && (request.method === "GET" || request.method === "HEAD");
        return renderReply(reused ? await pureAnswer(ctx, op, spec) : await spec.handler(ctx), headers);
      }
      who.keysOnly = spec.keysOnly === true;
      return renderReply(await changing(() => change(ctx, spec, raw, recorded, undefined)), headers);
    } catch (error) {
      if (error instanceof ApiError) return renderError(error, path, headers);
      throw error;
    }
  }

  /**
   * What a handler that may change the world does, one change at a time and at one instant; recorded unless
   * it was refused without moving anything. A replay passes the instant (`at`) it was first made at.
   */
  async function change(
    ctx: RequestContext,
    spec: RouteSpec,
    raw: BodyResult,
    recorded: RecordingHeaders | null,
    at: number | undefined,
  ): Promise<Reply | Outcome> {
    const mark = sink ? worldMark(world) : "";
    const t = world.clock.settle(at);
    let status = 500;
    try {
      if (ctx.apiKey) ctx.apiKey.lastUsedAt = t;
      // Access was checked before the body arrived; the world may have moved since, and a replay checks here.
      spec.authorize?.(ctx);
      const reply = await spec.handler(ctx);
      status = reply.status;
      return reply;
    } catch (error) {
      if (error instanceof ApiError) status = error.status;
      throw error;
    } finally {
      world.clock.release();
      if (recorded && (status < 400 || status >= 500 || worldMark(world) !== mark)) {
        const method = ctx.request.method;
        const change: RequestChange = {
          kind: "request",
          at: t,
          method,
          url: ctx.request.url,
          keyId: ctx.apiKey?.id ?? null,
          headers: recorded.read(),
          body: raw.present ? raw.text : null,
        };
        // A read that seeded data is made durable by the next write, which the log holds after it.
        record(change, method !== "GET" && method !== "HEAD");
      }
    }
  }

  /** Makes recorded changes again, on the world as it stands; nothing is recorded while it runs. */
  async function replay(changes: Iterable<Change>): Promise<void> {
    await ready;
    recorder.replaying = true;
    try {
      for (const c of changes) {
        switch (c.kind) {
          case "request":
            await replayRequest(c);
            break;
          case "time":
            world.clock.moveTo(c.at);
            break;
          case "advance":
            if (c.at !== undefined) world.clock.moveTo(c.at);
            sim.advance(c.ms);
            break;
          case "config":
            sim.configure(c);
            break;
          case "reset":
            await build(
              c.document !== undefined ? resolve(c.document as object) : resolve(c.scenario),
              c.seed,
            );
            break;
          case "restore":
            restore(c.snapshot);
            break;
        }
      }
    } finally {
      recorder.replaying = false;
      memo.touch();
    }
  }

  /**
   * Makes a recorded change again (or a scenario's setup step): no faults, rate limits or latency, no turn
   * of its own. Answers the status it ended with, and the refusal's message.
   */
  async function replayRequest(c: RequestChange): Promise<{ status: number; message: string }> {
    const url = new URL(c.url);
    const request: SimRequest = {
      method: c.method,
      url: c.url,
      headers: new ListedHeaders(c.headers),
      body: null,
      signal: new AbortController().signal,
    };
    let outcome: Reply | Outcome | null = null;
    try {
      const claimed = outside.some((o) => o.claims(url.pathname));
      if (claimed && c.method !== "GET" && c.method !== "HEAD")
        outcome = await changeOutside(request, url, c.at);
      if (outcome === null) {
        const match = router.match(c.method, url.pathname);
        const spec = match.kind === "found" ? routes.get(match.op.operationId) : undefined;
        if (match.kind !== "found" || !spec) return { status: 404, message: "Not Found" };
        const key = c.keyId === null ? undefined : world.state.apiKeys.get(c.keyId);
        const user = key ? world.state.users.get(key.userId) : undefined;
        const caller = key && user ? { key, user } : null;
        const ctx = buildContext(
          world.services,
          request,
          url,
          match.op,
          match.params,
          match.prefix,
          caller,
          spec,
          null,
        );
        const raw: BodyResult = c.body === null ? { present: false } : { present: true, text: c.body };
        takeBody(ctx, match.op, raw);
        checkBody(ctx, match.op, spec);
        outcome = await change(ctx, spec, raw, null, c.at);
      }
    } catch (error) {
      // A refusal is part of what was recorded (it moved the world all the same); a bug is told, not fatal.
      if (error instanceof ApiError) return { status: error.status, message: error.message };
      options.onError?.(error, { method: c.method, path: url.pathname });
      return { status: 500, message: "Internal Server Error" };
    }
    // A stream (a preview) is not read by anyone; stop it.
    if (outcome instanceof LineStream) outcome.stop();
    else if (outcome && isResponse(outcome)) await outcome.body?.cancel().catch(() => {});
    return { status: outcome?.status ?? 404, message: "" };
  }

  /**
   * A pure read's answer, rendered once per state and reused: an Answer whose body is already encoded.
   * Keyed by the caller (roles differ), path and query; rate-limit headers are added per request.
   */
  async function pureAnswer(ctx: RequestContext, op: Operation, spec: RouteSpec): Promise<Outcome> {
    const key = `answer ${op.operationId} ${ctx.caller?.id ?? ""} ${ctx.path}${ctx.url.search}`;
    const known = memo.peek<Answer>(key);
    if (known) {
      if (options.verifyKeptAnswers)
        verifyKept(known, renderReply(await spec.handler(keysOutOfReach(ctx)), {}), key);
      return known;
    }
    const version = memo.version;
    const rendered = renderReply(
      await spec.handler(options.verifyKeptAnswers ? keysOutOfReach(ctx) : ctx),
      {},
    );
    if (!(rendered instanceof Answer)) return rendered;
    const answer = rendered.encoded();
    if (answer.status === 200) memo.set(key, answer, version);
    return answer;
  }

  function applyRateLimit(account: string, headers: Record<string, string>): void {
    const d = limiter.take(account, world.clock.now(), config.rateLimitPerMinute);
    Object.assign(headers, rateHeaders(d.limit, d.remaining));
    if (!d.allowed) {
      throw new ApiError(429, "Too many requests. Please try again later.", undefined, {
        "retry-after": String(d.retryAfterSeconds),
      });
    }
  }

  /**
   * Makes a scenario's setup steps on `next` before it becomes the world: its requests the way a replay
   * makes recorded ones (not recorded again: a replayed reset makes them anew), and clock moves. A refused
   * step refuses the scenario, and the world there was stays. Other requests wait meanwhile, since `world`
   * is the one being set up.
   */
  async function setUp(next: World, steps: readonly SetupStep[]): Promise<void> {
    const before: World | undefined = world;
    const wasReplaying = recorder.replaying;
    world = next;
    recorder.replaying = true;
    const keyIdOf = async (apiKey: string) =>
      ((await authenticate(next.state, `Bearer ${apiKey}`))?.key.id as string | undefined) ?? null;
    const made = runSetup(steps, next, keyIdOf, replayRequest);
    setupDone = made.then(
      () => {},
      () => {},
    );
    try {
      await made;
    } finally {
      setupDone = null;
      world = before as World;
      recorder.replaying = wasReplaying;
      memo.touch();
    }
  }

  async function delay(): Promise<void> {
    const l = config.latencyMs;
    const ms = Array.isArray(l) ? l[0] + Math.floor(latencyRng.next() * (l[1] - l[0] + 1)) : l;
    if (ms > 0) await sleep(ms);
  }

  return sim;
}

/** What a request was: whose, and whether it was pure (it changed nothing: derived data stays). */
interface Who {
  userId: string | null;
  pure: boolean;
  /** A change of API keys only: kept answers stay (`RouteSpec.keysOnly`). */
  keysOnly: boolean;
  /** The request's body as read, for the journal. */
  body: string | null;
}
