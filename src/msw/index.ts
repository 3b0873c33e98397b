/**
 * The simulator as MSW request handlers: the whole API (both `/api/v1` and `/v1`, ACP under `/api/acp`,
 * `/_openapi.json`, the checkout page behind `continue_url` and the `/__sim/` control plane) served in a
 * browser tab by `setupWorker` (msw/browser) or in a frontend's own tests by `setupServer` (msw/node), with
 * no server at all.
 *
 * ```ts
 * import { setupWorker } from "msw/browser";
 * import { createHandlers } from "audience-research-sim/msw";
 * const handlers = createHandlers({ scenario: "default" });
 * await setupWorker(...handlers).start();
 * handlers.simulator.manifest().users.owner.apiKey; // a working API key
 * ```
 *
 * One catch-all handler forwards every request whose path belongs to the API to the simulator core's
 * `fetch` and lets everything else through untouched (the app's own pages, scripts and other APIs). The
 * simulator is created on first use, so importing this module costs nothing until a request arrives.
 *
 * Runtime-free: no `node:` module is reachable from here, so bundlers build it for the browser as is.
 * `Prefer: dynamic=true` needs Prism's generator, which only the Node host loads; here such a request is
 * answered with the contract's example and an `x-sim-prefer-fallback` header saying so.
 */
import { type HttpResponse, http, type RequestHandler } from "msw";
import type { ClockMode } from "../core/world/clock.ts";
import type { ScenarioDocument, Simulator, SimulatorOptions } from "../simulator.ts";
import { createSimulator, loadScenario } from "../simulator.ts";

/** Path prefixes the API owns; requests to any other path pass through. */
export const API_PATH_PREFIXES: readonly string[] = [
  "/api/v1/",
  "/v1/",
  "/api/acp/",
  "/_openapi.json",
  "/__sim/",
  "/checkout/",
];

export interface HandlerOptions {
  /**
   * The world to start from (default `default`): a built-in scenario's name, or a scenario document of
   * your own (`defineScenario({...})` from this package, or a scenario file's parsed JSON). An invalid
   * document throws a ScenarioError listing every problem, here, before any request.
   */
  scenario?: string | ScenarioDocument;
  /** Seed for every generated ID and datum (default: the document's seed, else 1). */
  seed?: number;
  /**
   * `real` (the default, as `npm start`): background jobs (Formation builds, exports…) finish after a few
   * real seconds. `manual`: time moves only through `simulator.advance(ms)` or `POST /__sim/clock/advance`;
   * use it in tests for deterministic runs.
   */
  clock?: ClockMode;
  /**
   * Only requests to these origins are served (e.g. `"https://api.example.com"`); by default requests to
   * any origin whose path belongs to the API, including the page's own origin.
   */
  origin?: string | readonly string[];
  /** Milliseconds added to every API response, or a `[min, max]` range drawn per response. */
  latency?: number | readonly [number, number];
  /** Requests per account per minute (default 300). */
  rateLimitPerMinute?: number;
  /** Serve the `/__sim/` control plane (default true). */
  control?: boolean;
  controlToken?: string | null;
  /** Any other option of `createSimulator`, passed through. */
  simulator?: Omit<SimulatorOptions, "scenario" | "seed" | "clock" | "latencyMs">;
}

/** The handlers (spread them into `setupWorker`/`setupServer`) and the simulator behind them. */
export type SimulatorHandlers = RequestHandler[] & {
  /** The simulator serving the handlers (created on first access): `advance(ms)`, `manifest()`, `reset()`. */
  readonly simulator: Simulator;
};

export function createHandlers(options: HandlerOptions = {}): SimulatorHandlers {
  let sim: Simulator | null = null;
  // A document is checked now, so that a mistake in it shows where the handlers are made.
  const scenario = typeof options.scenario === "object" ? loadScenario(options.scenario) : options.scenario;
  const simulator = (): Simulator => {
    sim ??= createSimulator({
      ...options.simulator,
      scenario: scenario ?? "default",
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      clock: options.clock ?? "real",
      ...(options.latency === undefined
        ? {}
        : {
            latencyMs:
              typeof options.latency === "number"
                ? options.latency
                : [options.latency[0], options.latency[1]],
          }),
      ...(options.rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute: options.rateLimitPerMinute }),
      ...(options.control === undefined ? {} : { control: options.control }),
      ...(options.controlToken === undefined ? {} : { controlToken: options.controlToken }),
    });
    return sim;
  };
  const origins =
    options.origin === undefined
      ? null
      : new Set(
          (typeof options.origin === "string" ? [options.origin] : options.origin).map(
            (o) => new URL(o).origin,
          ),
        );

  const handler = http.all("*", async ({ request }) => {
    const url = new URL(request.url);
    if (origins !== null && !origins.has(url.origin)) return undefined;
    if (!belongsToApi(url.pathname)) return undefined;
    const response = await simulator().fetch(request);
    // MSW wants its own Response subclass only for typing; a plain Response streams the same.
    return response as unknown as HttpResponse<never>;
  });

  const handlers = [handler] as RequestHandler[];
  Object.defineProperty(handlers, "simulator", { get: simulator, enumerable: false });
  return handlers as SimulatorHandlers;
}

/** True for paths the simulator serves (see API_PATH_PREFIXES). */
export function belongsToApi(pathname: string): boolean {
  return API_PATH_PREFIXES.some((p) => pathname.startsWith(p));
}

export type { Manifest } from "../core/world/manifest.ts";
export { defineScenario, type ScenarioDocument, ScenarioError } from "../simulator.ts";
export type { ClockMode, Simulator, SimulatorOptions };
