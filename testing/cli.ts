/** Starting the CLI from its sources (tsx), for tests that need a real process; and a free port to give it. */
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
const running = new Set<ChildProcess>();

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `src/cli/main.ts` with the Node that runs the tests; PORT and HOST from the outside are cleared. */
export function startCli(args: string[], env: Record<string, string> = {}): CliRun {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: "", HOST: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Stops a started CLI as Ctrl+C would (SIGTERM) and answers how it exited. */
export function stopCli(run: CliRun): CliRun["exit"] {
  run.child.kill("SIGTERM");
  return run.exit;
}

/** Waits until a started CLI has printed its banner; answers the origin it listens on. */
export async function listening(run: CliRun, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout());
    if (m && run.stdout().includes("Press Ctrl+C")) return m[1] as string;
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`CLI did not start.\nstdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts the CLI on a free port and waits until it listens. */
export async function serveCli(args: string[]): Promise<{ run: CliRun; port: number; base: string }> {
  const port = await freePort();
  const run = startCli(["--port", String(port), ...args]);
  return { run, port, base: await listening(run) };
}

/** One request to a served CLI: JSON in (when `body` is given) and out (text when it is not JSON); no redirects followed. */
export async function callJson(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: "manual",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return { status: res.status, body: text };
  }
}

/** Runs the conformance kit's command line from its sources to the end, its reports into `reportsDir`. */
export function runKit(args: string[], reportsDir: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["--import", "tsx", "conformance/cli.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CONFORMANCE_REPORTS_DIR: reportsDir },
    timeout: 120_000,
  });
}

/** Kills every CLI a test started and has not seen exit (for afterAll). */
export function killAllClis(): void {
  for (const child of running) child.kill("SIGKILL");
}

/** A port free on loopback right now, for a process that must be given one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
