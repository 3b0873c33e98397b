/**
 * The servers under test, each started as its own child process on loopback (so /proc accounts its CPU
 * and memory alone), timed from spawn to its first good answer, and stopped at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildIfStale, startArgs } from "../../scripts/build.ts";
import { freePort } from "../../testing/cli.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export type TargetName =
  | "simulator"
  | "simulator+state-file"
  | "node:http"
  | "prism-static"
  | "prism-dynamic"
  | "scalar";
export const TARGET_NAMES: readonly TargetName[] = [
  "simulator",
  "simulator+state-file",
  "node:http",
  "prism-static",
  "prism-dynamic",
  "scalar",
];

export interface TargetSpec {
  name: TargetName;
  /** What the table says about how it was run. */
  description: string;
  /** Path prefix of the API on this server: the simulator honours the contract's `/api/v1`; the mocks
   * register the contract's paths bare (Prism ignores the relative server URLs, Scalar never reads them). */
  base: string;
  args(port: number): string[];
  /** It writes a line a request to stdout, which the bench reads and drops (else stdout is /dev/null). */
  logs?: boolean;
  /** Run before spawning, outside the start-up time (the simulator's `prestart`: build if stale). */
  prepare?(): Promise<unknown>;
}

export interface LaunchOptions {
  /** Extra node flags for the simulator (say `--cpu-prof`). */
  simNodeFlags?: string[];
  /** File of canned bodies for the bare server. */
  bareBodies?: string;
}

/** Where the durable simulator keeps its world: a fresh directory for each start. */
let stateDir: string | null = null;

export function targetSpec(name: TargetName, opts: LaunchOptions): TargetSpec {
  switch (name) {
    case "simulator+state-file": {
      const plain = targetSpec("simulator", opts);
      return {
        ...plain,
        name,
        description: `${plain.description} --state-file (every change fsync'd before its reply)`,
        prepare: async () => {
          await buildIfStale();
          if (stateDir) rmSync(stateDir, { recursive: true, force: true });
          stateDir = mkdtempSync(join(tmpdir(), "bench-state-"));
        },
        args: (port) => [...plain.args(port), "--state-file", join(stateDir as string, "state.json")],
      };
    }
    case "simulator":
      return {
        name,
        // As users start it (npm start's node flags, the request log on, read from a pipe): the CPU a
        // request costs them, log line included; a manual clock and no rate limit, so the load is measured.
        description: `npm start (node ${startArgs().join(" ")}): default scenario, the request log on (a pipe the bench reads), --clock manual --rate-limit 100000000`,
        logs: true,
        base: "/api/v1",
        prepare: buildIfStale,
        args: (port) => [
          // After npm start's own flags, so that they can override them.
          ...startArgs().slice(0, -1),
          ...(opts.simNodeFlags ?? []),
          ...startArgs().slice(-1),
          "--port",
          String(port),
          "--host",
          "127.0.0.1",
          "--clock",
          "manual",
          "--rate-limit",
          "100000000",
        ],
      };
    case "node:http":
      return {
        name,
        description: "bare node:http replaying the simulator's bytes (bench/servers/bare.ts)",
        base: "/api/v1",
        // Plain node (its own type stripping): no loader, so its start-up and memory are node:http's own.
        args: (port) => [
          "bench/servers/bare.ts",
          String(port),
          ...(opts.bareBodies ? [opts.bareBodies] : []),
        ],
      };
    case "prism-static":
    case "prism-dynamic":
      return {
        name,
        description: `prism mock${name === "prism-dynamic" ? " -d" : ""} openapi.json -v error`,
        base: "",
        args: (port) => [
          "node_modules/@stoplight/prism-cli/dist/index.js",
          "mock",
          ...(name === "prism-dynamic" ? ["-d", "--seed", "1"] : []),
          "-p",
          String(port),
          "-h",
          "127.0.0.1",
          "-v",
          "error",
          "openapi.json",
        ],
      };
    case "scalar":
      return {
        name,
        description: "@scalar/mock-server app on the simulator's node:http host (bench/servers/scalar.ts)",
        base: "",
        args: (port) => ["--import", "tsx", "bench/servers/scalar.ts", String(port)],
      };
  }
}

export interface Running {
  spec: TargetSpec;
  child: ChildProcess;
  pid: number;
  origin: string;
  /** Spawn to first 2xx answer to the probe, in ms. */
  startupMs: number;
  stop(): Promise<void>;
}

function probeOnce(origin: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(`${origin}${path}`, { headers, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.setTimeout(2_000, () => req.destroy());
  });
}

/** Spawns the server and waits (polling every 2 ms) for a 2xx on the probe path (a full path). */
export async function launch(
  spec: TargetSpec,
  probe: { path: string; headers: Record<string, string> },
  timeoutMs = 60_000,
): Promise<Running> {
  await spec.prepare?.();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, spec.args(port), {
    cwd: ROOT,
    stdio: ["ignore", spec.logs ? "pipe" : "ignore", "pipe"],
  });
  child.stdout?.resume();
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let exited: number | null = null;
  child.once("exit", (code) => {
    exited = code ?? -1;
  });
  const path = probe.path;
  for (;;) {
    if (exited !== null) throw new Error(`${spec.name} exited (${exited}) before answering:\n${stderr}`);
    if (performance.now() - started > timeoutMs) {
      child.kill("SIGKILL");
      throw new Error(`${spec.name} did not answer ${path} within ${timeoutMs} ms:\n${stderr}`);
    }
    const status = await probeOnce(origin, path, probe.headers);
    if (status >= 200 && status < 300) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const startupMs = performance.now() - started;
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (exited !== null) {
        resolve();
        return;
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGTERM");
    });
  return { spec, child, pid: child.pid ?? -1, origin, startupMs, stop };
}
