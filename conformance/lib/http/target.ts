/**
 * What the run is pointed at. A simulator is discovered through `GET /__sim/manifest` (and reset first);
 * a real deployment is described by a config file: base URL, API keys by role, and the IDs of resources
 * the run may read and, separately, change. Everything here is plain data, so the global setup can hand
 * it to the test files.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Deadlines, Machine } from "../description/deadlines.ts";
import { DEADLINES_SCHEMA, DEFAULT_DEADLINES, deadlinesOf } from "../description/deadlines.ts";
import { type ConfigProblem, referenceProblems, schemaProblems } from "./config-problems.ts";

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

/** The roles of the default scenario (src/scenarios/default.ts); a config names the keys of whichever it has. */
export const ROLES = [
  "owner",
  "teammate",
  "admin",
  "member",
  "outsider",
  "sso",
  "solo",
  "publisher",
  "studyViewer",
] as const;
export type Role = (typeof ROLES)[number];

export interface Price {
  id: string;
  kind: "subscription" | "credits";
  currency: "usd" | "eur";
  unitAmount: number;
  name: string;
}

export interface TargetInfo {
  kind: "simulator" | "deployment";
  baseUrl: string;
  prefix: string;
  acpPrefix: string;
  /** Other prefixes the v1 interface is served under on the same origin (`/v1` on the simulator). */
  extraPrefixes: string[];
  controlToken: string | null;
  /**
   * Where the control plane of the target's world is: `<baseUrl>/__sim`, or a sandbox's
   * `<baseUrl>/__sim/sandboxes/<id>` (its keys route the API requests to it by themselves).
   */
  controlBase: string;
  /** The sandbox the run is in; `made` when the run created it (and deletes it at the end). */
  sandbox: { id: string; made: boolean } | null;
  keys: Partial<Record<Role, string>>;
  users: Partial<Record<Role, string>>;
  plans: Partial<Record<Role, string>>;
  audiences: Record<string, string>;
  changeableAudiences: string[];
  formations: Record<string, { id: string; audience: string }>;
  minds: Record<string, string>;
  prices: Record<string, Price>;
  rateLimitPerMinute: number | null;
  /**
   * The target counts every request of an account in one place (one instance, or a shared limiter), so
   * its RateLimit-Remaining is exact: the simulator, or a config's `rateLimitCountedInOnePlace`. Otherwise
   * only what holds on any deployment is judged (lib/../checks/ratelimit.ts).
   */
  rateLimitExact: boolean;
  /**
   * What the run may use up for good: a collaborator (`role`'s account, an accepted collaborator of the
   * Audience `audience`, a handle of `audiences`) to remove. The simulator's is the default scenario's
   * `member` on `main` (a reset puts them back); a deployment's comes from its config, or there is none.
   */
  consumable: { collaborator: { audience: string; role: Role } | null };
  readOnly: boolean;
  /** The simulator may be reset (not `--no-reset`): checks whose changes the API cannot undo need it. */
  mayReset: boolean;
  /**
   * The world a simulator run resets to and rebuilds (`--scenario`): a built-in scenario's name or a
   * scenario document; null for a deployment.
   */
  world: string | object | null;
  seed: number;
  /** numRuns for every property (`--runs`); null keeps each property's default. */
  runs: number | null;
  /**
   * A deployment run planned to fit one rate-limit window per account (the default; `--deep` lifts it):
   * checks that would not fit are left for `--deep`, and the world model draws as many sequences as the
   * budget left allows.
   */
  quick: boolean;
  /**
   * Take any words where the description states a message (`--relax-wording`): for a deployment that
   * translates its messages. Status, `data.code` and fields are judged all the same.
   */
  relaxWording?: boolean;
  /**
   * When the run's time budget ends (epoch ms; null: no budget): requests, waits and polls stop there and
   * the run ends with what it checked (lib/running/runner.ts).
   */
  deadline?: number | null;
  pollTimeoutMs: number;
  /** What each background machine must finish within (lib/description/deadlines.ts); `deadlinesStated`: the config's own. */
  deadlines: Deadlines;
  deadlinesStated: Machine[];
  runId: string;
  /** The simulator's rate limit before the run raised it (restored at the end). */
  originalRateLimit: number | null;
}

export class ConfigError extends Error {}
export class UnreachableError extends Error {}

const ID = { type: "string", minLength: 1 };
/** The contract's resource IDs are UUIDs (openapi.json, components.parameters): a handle here is a mistake. */
const RESOURCE_ID = { type: "string", format: "uuid" };
/** A handle of the config's own Audiences (`main`), checked against them after the schema. */
const HANDLE = { type: "string", minLength: 1 };
const CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["baseUrl", "keys"],
  properties: {
    $schema: { type: "string" },
    description: { type: "string" },
    baseUrl: { type: "string", pattern: "^https?://" },
    prefix: { type: "string", pattern: "^(/[^/]+)*$" },
    acpPrefix: { type: "string", pattern: "^(/[^/]+)*$" },
    extraPrefixes: { type: "array", items: { type: "string", pattern: "^(/[^/]+)+$" } },
    keys: {
      type: "object",
      propertyNames: { enum: [...ROLES] },
      additionalProperties: { type: "string", pattern: "^(service_.+|\\$[A-Za-z_][A-Za-z0-9_]*)$" },
    },
    users: { type: "object", propertyNames: { enum: [...ROLES] }, additionalProperties: ID },
    plans: {
      type: "object",
      propertyNames: { enum: [...ROLES] },
      additionalProperties: { enum: ["free", "premium", "team"] },
    },
    readable: {
      type: "object",
      additionalProperties: false,
      properties: {
        audiences: { type: "object", additionalProperties: RESOURCE_ID },
        minds: { type: "object", additionalProperties: RESOURCE_ID },
        formations: {
          type: "object",
          additionalProperties: {
            type: "object",
            required: ["id", "audience"],
            additionalProperties: false,
            properties: { id: RESOURCE_ID, audience: HANDLE },
          },
        },
      },
    },
    changeable: {
      type: "object",
      additionalProperties: false,
      properties: { audiences: { type: "object", additionalProperties: RESOURCE_ID } },
    },
    prices: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["id", "kind", "currency", "unitAmount", "name"],
        additionalProperties: false,
        properties: {
          id: { type: "string", pattern: "^price_[a-zA-Z0-9]+$" },
          kind: { enum: ["subscription", "credits"] },
          currency: { enum: ["usd", "eur"] },
          unitAmount: { type: "integer", minimum: 0 },
          name: { type: "string" },
        },
      },
    },
    rateLimitPerMinute: { type: "integer", minimum: 1 },
    rateLimitCountedInOnePlace: { type: "boolean" },
    consumable: {
      type: "object",
      additionalProperties: false,
      properties: {
        collaborator: {
          type: "object",
          required: ["audience", "role"],
          additionalProperties: false,
          properties: { audience: HANDLE, role: { enum: [...ROLES] } },
        },
      },
    },
    pollTimeoutMs: { type: "integer", minimum: 1000 },
    deadlines: DEADLINES_SCHEMA,
  },
} as const;

interface ConfigFile {
  baseUrl: string;
  prefix?: string;
  acpPrefix?: string;
  extraPrefixes?: string[];
  keys: Partial<Record<Role, string>>;
  users?: Partial<Record<Role, string>>;
  plans?: Partial<Record<Role, string>>;
  readable?: {
    audiences?: Record<string, string>;
    minds?: Record<string, string>;
    formations?: Record<string, { id: string; audience: string }>;
  };
  changeable?: { audiences?: Record<string, string> };
  prices?: Record<string, Price>;
  rateLimitPerMinute?: number;
  rateLimitCountedInOnePlace?: boolean;
  consumable?: { collaborator?: { audience: string; role: Role } };
  pollTimeoutMs?: number;
  deadlines?: Partial<Record<`${Machine}Ms`, number>>;
}

export interface RunSettings {
  target: string | null;
  config: string | null;
  seed: number;
  runs: number | null;
  readOnly: boolean;
  noReset: boolean;
  controlToken: string | null;
  /** A sandbox's ID to run in, `new` for one the run makes (with the operator's token) and deletes. */
  sandbox?: string | null;
  /** The simulator's world for the run: a built-in scenario's name or a scenario document (default `default`). */
  scenario?: string | object | null;
  /** Against a deployment, run everything, however many rate-limit windows it takes (`--deep`). */
  deep?: boolean;
  /** Take any words where the description states a message (`--relax-wording`). */
  relaxWording?: boolean;
  runId: string;
}

/** The run's settings, from the environment the wrapper (or the user) set. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): RunSettings {
  const seed = env.CONFORMANCE_SEED ? Number(env.CONFORMANCE_SEED) : Math.floor(Math.random() * 2 ** 31);
  const runs = env.CONFORMANCE_RUNS ? Number(env.CONFORMANCE_RUNS) : null;
  if (!Number.isSafeInteger(seed)) throw new ConfigError("CONFORMANCE_SEED must be an integer");
  if (runs !== null && (!Number.isSafeInteger(runs) || runs < 1))
    throw new ConfigError("CONFORMANCE_RUNS must be an integer >= 1");
  return {
    target: env.CONFORMANCE_TARGET || null,
    config: env.CONFORMANCE_CONFIG || null,
    seed,
    runs,
    readOnly: flag(env.CONFORMANCE_READ_ONLY),
    noReset: flag(env.CONFORMANCE_NO_RESET),
    controlToken: env.CONFORMANCE_CONTROL_TOKEN || null,
    sandbox: env.CONFORMANCE_SANDBOX || null,
    deep: flag(env.CONFORMANCE_DEEP),
    relaxWording: flag(env.CONFORMANCE_RELAX_WORDING),
    runId: env.CONFORMANCE_RUN_ID || `${process.pid}-${Date.now()}`,
  };
}

function flag(v: string | undefined): boolean {
  return v !== undefined && v !== "" && v !== "0" && v !== "false";
}

/** Reads and validates a config file; every problem is a ConfigError naming the file and the field. */
export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): ConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`cannot read config ${path}: ${(e as Error).message}`);
  }
  // verbose: each error carries its schema, whose properties name what an unknown one could have been.
  const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true });
  addFormats(ajv, ["uuid"]);
  const valid = ajv.compile(CONFIG_SCHEMA);
  // Every problem at once, the schema's and the references', each with its JSON pointer.
  const problems: ConfigProblem[] = [
    ...(valid(raw) ? [] : schemaProblems(valid.errors ?? [])),
    ...referenceProblems(raw),
  ];
  if (problems.length) {
    const lines = problems.map((p) => `${p.pointer || "/"}: ${p.message}`);
    const n = problems.length;
    throw new ConfigError(
      `invalid config ${path} (${n} problem${n === 1 ? "" : "s"}):\n  ${lines.join("\n  ")}`,
    );
  }
  const config = raw as ConfigFile;
  for (const [role, value] of Object.entries(config.keys)) {
    if (!value.startsWith("$")) continue;
    const fromEnv = env[value.slice(1)];
    if (!fromEnv) throw new ConfigError(`config key ${role} names ${value}, which is not set`);
    config.keys[role as Role] = fromEnv;
  }
  return config;
}

function controlHeaders(token: string | null): Record<string, string> {
  return token ? { "x-sim-control-token": token } : {};
}

async function fetchOrUnreachable(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    throw new UnreachableError(`cannot reach ${url}: ${(e as Error).cause ?? (e as Error).message}`);
  }
}

/** What the kit reads of a simulator's manifest (`GET /__sim/manifest`), as the control plane serves it. */
export interface ManifestShape {
  users: Record<string, { id: string; apiKey: string; plan: string }>;
  audiences: Record<string, { id: string }>;
  minds: Record<string, { id: string }>;
  formations: Record<string, { id: string; audience: string }>;
  prices: Record<string, Price & { unitAmount: number }>;
}

/** The control plane of the simulator's default world, or of one of its sandboxes. */
export function controlBaseOf(baseUrl: string, sandbox: string | null): string {
  return sandbox ? `${baseUrl}/__sim/sandboxes/${encodeURIComponent(sandbox)}` : `${baseUrl}/__sim`;
}

/** Asks the target for its manifest: the manifest when it is a simulator, null when it is not. */
export async function probeSimulator(
  controlBase: string,
  token: string | null,
): Promise<ManifestShape | null> {
  const res = await fetchOrUnreachable(`${controlBase}/manifest`, { headers: controlHeaders(token) });
  if (res.status !== 200) return null;
  const body = (await res.json().catch(() => null)) as ManifestShape | null;
  return body && typeof body === "object" && body.users && body.audiences ? body : null;
}

/** Checks that a deployment answers at all (any HTTP status counts: it is there). */
export async function probeDeployment(baseUrl: string, prefix: string): Promise<void> {
  await fetchOrUnreachable(`${baseUrl}${prefix}/auth/me`);
}

/** Resolves the target: a config file when given, otherwise the simulator at the target URL. */
export async function discover(settings: RunSettings): Promise<TargetInfo> {
  const common = {
    readOnly: settings.readOnly,
    mayReset: !settings.noReset,
    world: null as string | object | null,
    seed: settings.seed,
    runs: settings.runs,
    runId: settings.runId,
    controlToken: settings.controlToken,
    quick: false,
    relaxWording: settings.relaxWording === true,
  };
  if (settings.config) {
    const c = loadConfig(settings.config);
    const baseUrl = (settings.target ?? c.baseUrl).replace(/\/$/, "");
    const prefix = c.prefix ?? "/api/v1";
    await probeDeployment(baseUrl, prefix);
    // Asked for a depth, with --runs, a run keeps it; otherwise it is planned to the account's window.
    return fromConfig(c, baseUrl, prefix, {
      ...common,
      quick: !settings.deep && settings.runs === null,
    });
  }
  if (!settings.target) throw new ConfigError("no target: give --target URL or --config FILE");
  const baseUrl = settings.target.replace(/\/$/, "");
  const world = settings.scenario ?? "default";
  const sandbox =
    settings.sandbox === "new"
      ? await makeSandbox(baseUrl, settings.controlToken, world)
      : settings.sandbox
        ? { id: settings.sandbox, made: false, token: settings.controlToken }
        : null;
  const token = sandbox ? sandbox.token : settings.controlToken;
  const controlBase = controlBaseOf(baseUrl, sandbox?.id ?? null);
  let manifest = await probeSimulator(controlBase, token);
  if (!manifest) {
    throw new ConfigError(
      sandbox
        ? `${controlBase}/manifest does not answer: no such sandbox, or not its token (--control-token)`
        : `${baseUrl} does not answer GET /__sim/manifest; for a deployment, describe it in a config file (--config)`,
    );
  }
  if (!settings.noReset) manifest = await resetSimulator(controlBase, token, world);
  const originalRateLimit = await raiseRateLimit(controlBase, token);
  return {
    ...fromManifest(manifest, baseUrl, originalRateLimit, { ...common, controlToken: token, world }),
    controlBase,
    sandbox: sandbox ? { id: sandbox.id, made: sandbox.made } : null,
  };
}

/** A fresh sandbox for the run (the operator's token), deleted by the run's end. */
async function makeSandbox(
  baseUrl: string,
  operatorToken: string | null,
  world: string | object,
): Promise<{ id: string; made: true; token: string }> {
  const res = await fetchOrUnreachable(`${baseUrl}/__sim/sandboxes`, {
    method: "POST",
    headers: { "content-type": "application/json", ...controlHeaders(operatorToken) },
    body: JSON.stringify({ scenario: world }),
  });
  if (res.status !== 201)
    throw new ConfigError(
      `POST /__sim/sandboxes answered ${res.status}: ${(await res.text()).slice(0, 200)}`,
    );
  const made = (await res.json()) as { id: string; controlToken: string };
  return { id: made.id, made: true, token: made.controlToken };
}

/** Deletes the sandbox the run made; true when it is gone. */
export async function deleteSandbox(info: TargetInfo): Promise<boolean> {
  if (!info.sandbox?.made) return false;
  const res = await fetchOrUnreachable(info.controlBase, {
    method: "DELETE",
    headers: controlHeaders(info.controlToken),
  });
  return res.status === 204;
}

async function resetSimulator(
  controlBase: string,
  token: string | null,
  world: string | object,
): Promise<ManifestShape> {
  const res = await fetchOrUnreachable(`${controlBase}/reset`, {
    method: "POST",
    headers: { "content-type": "application/json", ...controlHeaders(token) },
    body: JSON.stringify({ scenario: world }),
  });
  if (res.status !== 200)
    throw new ConfigError(`POST /__sim/reset answered ${res.status}: ${(await res.text()).slice(0, 2000)}`);
  return (await res.json()) as ManifestShape;
}

/**
 * The simulator counts requests on its virtual clock, which does not move by itself in manual mode, so a
 * run would stall at 300 requests per account. The run lifts the ceiling (the description calls it
 * "tunable by the operator"); the 429 check sets its own small limit, and the end of the run restores it.
 */
async function raiseRateLimit(controlBase: string, token: string | null): Promise<number | null> {
  const get = await fetchOrUnreachable(`${controlBase}/config`, { headers: controlHeaders(token) });
  const before = get.status === 200 ? ((await get.json()) as { rateLimitPerMinute?: number }) : {};
  await setSimRateLimit(controlBase, token, 1_000_000);
  return before.rateLimitPerMinute ?? null;
}

export async function setSimRateLimit(
  controlBase: string,
  token: string | null,
  perMinute: number,
): Promise<void> {
  await fetchOrUnreachable(`${controlBase}/config`, {
    method: "PATCH",
    headers: { "content-type": "application/json", ...controlHeaders(token) },
    body: JSON.stringify({ rateLimitPerMinute: perMinute }),
  });
}

type Common = Pick<
  TargetInfo,
  "readOnly" | "mayReset" | "seed" | "runs" | "runId" | "controlToken" | "world" | "quick" | "relaxWording"
>;

function fromManifest(
  m: ManifestShape,
  baseUrl: string,
  originalRateLimit: number | null,
  common: Common,
): TargetInfo {
  const pick = <T>(f: (u: ManifestShape["users"][string]) => T) =>
    Object.fromEntries(Object.entries(m.users).map(([k, u]) => [k, f(u)]));
  const audiences = Object.fromEntries(Object.entries(m.audiences).map(([k, a]) => [k, a.id]));
  return {
    kind: "simulator",
    baseUrl,
    prefix: "/api/v1",
    acpPrefix: "/api/acp",
    extraPrefixes: ["/v1"],
    keys: pick((u) => u.apiKey),
    users: pick((u) => u.id),
    plans: pick((u) => u.plan),
    audiences,
    // The run reset the simulator, so everything in it is the run's to change.
    changeableAudiences: Object.keys(audiences),
    formations: m.formations,
    minds: Object.fromEntries(Object.entries(m.minds).map(([k, v]) => [k, v.id])),
    prices: Object.fromEntries(
      Object.entries(m.prices).map(([k, p]) => [
        k,
        { id: p.id, kind: p.kind, currency: p.currency, unitAmount: p.unitAmount, name: p.name },
      ]),
    ),
    rateLimitPerMinute: null,
    rateLimitExact: true,
    // The default scenario's; a world without those handles is told so (what the check needs is missing).
    consumable: { collaborator: { audience: "main", role: "member" } },
    pollTimeoutMs: 30_000,
    deadlines: { ...DEFAULT_DEADLINES },
    deadlinesStated: [],
    originalRateLimit,
    controlBase: `${baseUrl}/__sim`,
    sandbox: null,
    ...common,
  };
}

function fromConfig(c: ConfigFile, baseUrl: string, prefix: string, common: Common): TargetInfo {
  const changeable = c.changeable?.audiences ?? {};
  const { deadlines, stated } = deadlinesOf(c.deadlines);
  return {
    kind: "deployment",
    baseUrl,
    prefix,
    acpPrefix: c.acpPrefix ?? "/api/acp",
    extraPrefixes: c.extraPrefixes ?? [],
    keys: c.keys,
    users: c.users ?? {},
    plans: c.plans ?? {},
    audiences: { ...(c.readable?.audiences ?? {}), ...changeable },
    changeableAudiences: Object.keys(changeable),
    formations: c.readable?.formations ?? {},
    minds: c.readable?.minds ?? {},
    prices: c.prices ?? {},
    rateLimitPerMinute: c.rateLimitPerMinute ?? null,
    rateLimitExact: c.rateLimitCountedInOnePlace === true,
    consumable: { collaborator: c.consumable?.collaborator ?? null },
    pollTimeoutMs: c.pollTimeoutMs ?? 120_000,
    deadlines,
    deadlinesStated: stated,
    originalRateLimit: null,
    controlBase: `${baseUrl}/__sim`,
    sandbox: null,
    ...common,
  };
}
