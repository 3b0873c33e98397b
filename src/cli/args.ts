/**
 * Command-line arguments of `npm start`: parsed with node:util `parseArgs`, every value checked, and
 * turned into the options of the simulator and the server. Bad usage is a `UsageError` (exit code 2).
 */
import { parseArgs } from "node:util";
import leven from "leven";
import { LIMITS } from "../contract/limits.ts";
import type { ClockMode } from "../core/world/clock.ts";
import { INSTANCE_NAME } from "../core/world/sandboxes.ts";
import { parseCorsOrigin } from "../node/cors.ts";
import { scenarios } from "../scenarios/index.ts";
import { parseDuration } from "./duration.ts";

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = "127.0.0.1";

export type LogFormat = "pretty" | "json";

export interface CliOptions {
  port: number;
  host: string;
  /** A built-in scenario's name, unless `scenarioFile` is set. */
  scenario: string;
  /** `--scenario PATH` naming a scenario document (a `.json` file, or any path with a `/`). */
  scenarioFile: string | null;
  /** `--from-snapshot FILE`: start from a saved world (`GET /__sim/snapshot`). */
  snapshotFile: string | null;
  /** null when not given: the scenario document's own seed, else 1. */
  seed: number | null;
  clock: ClockMode;
  /** Serve each edit of the scenario file (`--watch`). */
  watch: boolean;
  control: boolean;
  controlToken: string | null;
  rateLimitPerMinute: number;
  latencyMs: number | [number, number];
  /** null: no request log (`--quiet`). */
  log: LogFormat | null;
  /** `--state-file PATH`: load the world from PATH if it exists, save it there on every change. */
  stateFile: string | null;
  /** Which of the flags a saved world overrides were given: `scenario`, `seed`, `rate-limit`, `latency`, `clock`. */
  given: string[];
  /** `--cors-origin`: origins a browser app may call from; `*` (the default) is any origin. */
  corsOrigins: string[];
  /** `--max-sandboxes`: how many sandboxes may exist at once. */
  maxSandboxes: number;
  /** `--sandbox-ttl`: a sandbox idle this long (ms) is deleted; null keeps them until deleted. */
  sandboxTtlMs: number | null;
  /** `--instance`: this process's name in the sandbox IDs it makes, for a proxy in front of several. */
  instance: string | null;
}

export type ParsedArgs = { kind: "help" } | { kind: "run"; options: CliOptions };

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const USAGE = `Usage: audience-research-sim serve [options]
       npm start -- [options]             (in a clone of the repository)

Serves the Audience Research Service API simulator over HTTP.

Options:
  --port N               port to listen on; 0 picks a free one (default: $PORT or ${DEFAULT_PORT})
  --host H               address to listen on (default: $HOST or ${DEFAULT_HOST})
  --scenario NAME|FILE   scenario to start from (default: default): a built-in one,
${scenarios.map((s) => `                           ${s.name}`).join("\n")}
                         or a scenario document (FILE.json, or a path with a /)
  --watch                with --scenario FILE: serve each saved edit of the file at once (a reset to
                         the new document); an edit with problems is printed, the last good world stays
  --from-snapshot FILE   start from a saved world (what GET /__sim/snapshot answers)
  --seed N               seed for every generated ID and datum, an integer 0..4294967295 (default:
                         the scenario document's seed, else 1)
  --clock real|manual    real: background jobs finish after a few real seconds (default);
                         manual: time moves only through POST /__sim/clock/advance
  --no-control           turn the control plane (/__sim/...) off
  --control-token T      require the header x-sim-control-token: T on control-plane requests
                         (default: $SIM_CONTROL_TOKEN when set)
  --rate-limit N         requests per account per minute (default: ${LIMITS.rateLimitPerMinute}, the contract's)
  --latency MS           add MS milliseconds to every API response; MIN-MAX draws from that range
  --log pretty|json      request log format: one line per request (default: pretty)
  --quiet                no request log
  --cors-origin ORIGIN   let a browser app on ORIGIN (e.g. http://localhost:5173) call the API;
                         repeatable (default: *, any origin)
  --state-file PATH      keep the state in PATH: loaded at start if it exists (then --scenario and
                         --seed are ignored), saved atomically after every change; sandboxes too
  --max-sandboxes N      how many sandboxes (POST /__sim/sandboxes) may exist at once (default: 100)
  --sandbox-ttl DURATION delete a sandbox unused for DURATION: 90s, 30m, 12h, 7d, 500ms; a bare
                         number is seconds (default: never)
  --instance NAME        name this process in the sandbox IDs it makes (a-z, 0-9; for a proxy that
                         routes several processes by sandbox ID)
  -h, --help             show this help
`;

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  scenario: { type: "string" },
  "from-snapshot": { type: "string" },
  watch: { type: "boolean" },
  seed: { type: "string" },
  clock: { type: "string" },
  "no-control": { type: "boolean" },
  "control-token": { type: "string" },
  "rate-limit": { type: "string" },
  latency: { type: "string" },
  log: { type: "string" },
  quiet: { type: "boolean" },
  "cors-origin": { type: "string", multiple: true },
  "state-file": { type: "string" },
  "max-sandboxes": { type: "string" },
  "sandbox-ttl": { type: "string" },
  instance: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const UINT32_MAX = 4_294_967_295;

/** Parses argv (without the node and script entries) and the environment; throws UsageError. */
export function parseCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedArgs {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(nearestOption(message, Object.keys(OPTIONS)));
  }
  if (values.help) return { kind: "help" };

  const port =
    values.port !== undefined
      ? integer("--port", values.port, 0, 65_535)
      : env.PORT !== undefined && env.PORT !== ""
        ? integer("PORT", env.PORT, 0, 65_535)
        : DEFAULT_PORT;
  const host = nonEmpty("--host", values.host ?? (env.HOST || DEFAULT_HOST));

  const scenario = values.scenario ?? "default";
  const builtIn = scenarios.some((s) => s.name === scenario);
  const scenarioFile = !builtIn && /[\\/]|\.json$/i.test(scenario) ? scenario : null;
  if (!builtIn && scenarioFile === null) {
    throw new UsageError(
      `Unknown scenario "${scenario}". Known scenarios: ${scenarios.map((s) => s.name).join(", ")} (or a scenario document: FILE.json)`,
    );
  }
  const snapshotFile =
    values["from-snapshot"] === undefined ? null : nonEmpty("--from-snapshot", values["from-snapshot"]);
  if (snapshotFile !== null && (values.scenario !== undefined || values.seed !== undefined))
    throw new UsageError(
      "--from-snapshot starts from a saved world: --scenario and --seed make no sense with it",
    );

  const watch = values.watch === true;
  if (watch && scenarioFile === null)
    throw new UsageError("--watch watches a scenario file: give --scenario FILE.json with it");

  const seed = values.seed === undefined ? null : integer("--seed", values.seed, 0, UINT32_MAX);

  const clock = values.clock ?? "real";
  if (clock !== "real" && clock !== "manual") {
    throw new UsageError(`--clock must be "real" or "manual", not "${clock}"`);
  }

  const control = !values["no-control"];
  // The flag, else SIM_CONTROL_TOKEN: a container keeps its secret in the environment, not on a command line.
  const token =
    values["control-token"] ?? (control && env.SIM_CONTROL_TOKEN ? env.SIM_CONTROL_TOKEN : undefined);
  if (token !== undefined) {
    if (!control) throw new UsageError("--control-token makes no sense with --no-control");
    nonEmpty("--control-token", token);
  }

  const rateLimitPerMinute =
    values["rate-limit"] === undefined
      ? LIMITS.rateLimitPerMinute
      : integer("--rate-limit", values["rate-limit"], 1, 1_000_000_000);

  const latencyMs = values.latency === undefined ? 0 : latency(values.latency);

  const log = values.quiet ? null : (values.log ?? "pretty");
  if (values.log !== undefined && values.log !== "pretty" && values.log !== "json") {
    throw new UsageError(`--log must be "pretty" or "json", not "${values.log}"`);
  }

  const stateFile =
    values["state-file"] === undefined ? null : nonEmpty("--state-file", values["state-file"]);
  const corsOrigins = (values["cors-origin"] ?? ["*"]).map((o) => {
    try {
      return parseCorsOrigin(o);
    } catch (error) {
      throw new UsageError(`--cors-origin: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  const maxSandboxes =
    values["max-sandboxes"] === undefined
      ? 100
      : integer("--max-sandboxes", values["max-sandboxes"], 0, 100_000);
  const sandboxTtlMs =
    values["sandbox-ttl"] === undefined ? null : duration("--sandbox-ttl", values["sandbox-ttl"]);
  const instance = values.instance ?? null;
  if (instance !== null && !INSTANCE_NAME.test(instance))
    throw new UsageError(`--instance must be 1 to 16 characters a-z and 0-9, not "${instance}"`);
  const given = (["scenario", "seed", "rate-limit", "latency", "clock"] as const).filter(
    (f) => values[f] !== undefined,
  );

  return {
    kind: "run",
    options: {
      port,
      host,
      scenario,
      scenarioFile,
      snapshotFile,
      watch,
      seed,
      clock,
      control,
      controlToken: token ?? null,
      rateLimitPerMinute,
      latencyMs,
      log: log as LogFormat | null,
      stateFile,
      given,
      corsOrigins,
      maxSandboxes,
      sandboxTtlMs,
      instance,
    },
  };
}

/**
 * Node's "Unknown option '--prot'. To specify a positional argument…" said plainly, with the nearest known
 * option. (The kit's command line says the same its own way: it may not import the simulator's CLI.)
 */
export function nearestOption(message: string, known: readonly string[]): string {
  const given = /^Unknown option '(-[^']+)'/.exec(message)?.[1];
  if (given === undefined) return message;
  const near = known.map((o) => `--${o}`).sort((a, b) => leven(given, a) - leven(given, b))[0];
  return `unknown option ${given}${near && leven(given, near) <= 2 ? `: did you mean ${near}?` : ""}`;
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
}

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${name} must be an integer, not "${text}"`);
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${name} must be an integer from ${min} to ${max}, not "${text}"`);
  }
  return n;
}

function nonEmpty(name: string, text: string): string {
  if (text.trim() === "") throw new UsageError(`${name} must not be empty`);
  return text;
}

/** `500ms`, `90s`, `30m`, `12h`, `7d` (a bare number is seconds), up to a year, in ms. */
function duration(name: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === "malformed")
    throw new UsageError(`${name} must be a duration such as 90s, 30m, 12h or 7d, not "${text}"`);
  if (ms === "out of range") throw new UsageError(`${name} must be from 1ms to 366d, not "${text}"`);
  return ms;
}

/** `MS` or `MIN-MAX`, in whole milliseconds, at most ten minutes. */
function latency(text: string): number | [number, number] {
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(text);
  if (range) {
    const min = integer("--latency minimum", range[1] as string, 0, 600_000);
    const max = integer("--latency maximum", range[2] as string, 0, 600_000);
    if (min > max) throw new UsageError(`--latency range must be MIN-MAX with MIN <= MAX, not "${text}"`);
    return min === max ? min : [min, max];
  }
  if (!/^\s*\d+\s*$/.test(text)) {
    throw new UsageError(
      `--latency must be milliseconds (e.g. 200) or a range MIN-MAX (e.g. 50-300), not "${text}"`,
    );
  }
  return integer("--latency", text, 0, 600_000);
}
