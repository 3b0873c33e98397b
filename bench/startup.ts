/**
 * Start-up under `npm run bench`: spawn to the first 200 of `/_openapi.json` (the contract, what a client
 * generator or the docs page asks first), and the same with `--state-file` holding 1,000 saved sandboxes
 * (each with a change of its own). Baseline: bare node:http's spawn to first answer, sampled in turn with
 * the simulator's so that both see the same machine.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./lib/load.ts";
import { launch, ROOT, type TargetSpec, targetSpec } from "./lib/servers.ts";
import { post } from "./sandboxes.ts";

export interface StartupResult {
  samples: number;
  /** Bare node:http, spawn to its first answer: the baseline. */
  bareMs: { median: number; samples: number[] };
  /** Spawn to the first 200 of /_openapi.json, plain: median and every sample. */
  openapiMs: { median: number; samples: number[] };
  /**
   * As a user starts it: `audience-research-sim serve` with no flags, spawn to the first 200 of `auth/me`,
   * beside a bare node:http server written in plain JavaScript (no type stripping at start), sampled in turn.
   */
  asUsersMs: { median: number; samples: number[] };
  bareJsMs: { median: number; samples: number[] };
  /** The same, the first time after an install or a build: no code cache yet (scripts/serve-entry.cjs). */
  firstMs: number;
  /** The same with --state-file and `savedSandboxes` saved sandboxes. */
  savedMs: { median: number; samples: number[] };
  savedSandboxes: number;
  /** The saved sandboxes all answer after the restart (each restored on this first request). */
  answeringAfter: number;
}

const OPENAPI = { path: "/_openapi.json", headers: {} };

export async function benchStartup(
  samples: number,
  savedSandboxes: number,
  log: (line: string) => void,
): Promise<StartupResult> {
  const plain = targetSpec("simulator", {});
  const bareSpec = targetSpec("node:http", {});
  const openapi: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < samples; i++) {
    for (const [spec, into] of [
      [plain, openapi],
      [bareSpec, bare],
    ] as const) {
      const r = await launch(spec, OPENAPI);
      into.push(r.startupMs);
      await r.stop();
    }
  }
  const bareMs = { median: median(bare), samples: bare };
  const { asUsersMs, bareJsMs, firstMs } = await asUsersStart(samples);

  const openapiMs = { median: median(openapi), samples: openapi };
  if (savedSandboxes === 0)
    return {
      samples,
      bareMs,
      openapiMs,
      asUsersMs,
      bareJsMs,
      firstMs,
      savedMs: { median: Number.NaN, samples: [] },
      savedSandboxes,
      answeringAfter: 0,
    };
  const dir = mkdtempSync(join(tmpdir(), "bench-startup-"));
  const withState = {
    ...plain,
    args: (port: number) => [
      ...plain.args(port),
      "--state-file",
      join(dir, "state.json"),
      "--max-sandboxes",
      String(savedSandboxes),
    ],
  };
  try {
    log(`start-up: saving ${savedSandboxes} sandboxes`);
    const keys: string[] = [];
    const first = await launch(withState, OPENAPI);
    try {
      for (let i = 0; i < savedSandboxes; i++) {
        const { manifest } = (await post(first.origin, "/__sim/sandboxes", {})).json;
        const key = manifest.users.owner?.apiKey ?? "";
        keys.push(key);
        // A change of its own, so that a restart has a log to bring back.
        const res = await fetch(`${first.origin}/api/v1/api-keys`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: '{"name":"saved"}',
        });
        await res.arrayBuffer();
      }
    } finally {
      await first.stop();
    }
    const saved: number[] = [];
    let answeringAfter = 0;
    for (let i = 0; i < samples; i++) {
      const r = await launch(withState, OPENAPI);
      saved.push(r.startupMs);
      if (i === samples - 1) {
        for (const key of keys) {
          const res = await fetch(`${r.origin}/api/v1/api-keys`, {
            headers: { authorization: `Bearer ${key}` },
          });
          const list = (await res.json()) as { name: string | null }[];
          if (res.status === 200 && list.some((k) => k.name === "saved")) answeringAfter++;
        }
      }
      await r.stop();
    }
    return {
      samples,
      bareMs,
      openapiMs,
      asUsersMs,
      bareJsMs,
      firstMs,
      savedMs: { median: median(saved), samples: saved },
      savedSandboxes,
      answeringAfter,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The package's command as a user runs it, and node:http in plain JavaScript, in turn. */
async function asUsersStart(
  samples: number,
): Promise<Pick<StartupResult, "asUsersMs" | "bareJsMs" | "firstMs">> {
  // The code V8 compiled for the bundle, kept by an earlier start: gone, as after an install or a build.
  const cache = join(ROOT, "dist/.compile-cache");
  for (const name of existsSync(cache) ? readdirSync(cache) : [])
    if (name.startsWith("cli-")) rmSync(join(cache, name), { force: true });
  // The default scenario's owner key, deterministic for its seed: read once, outside the timing.
  const probe = await launch(targetSpec("simulator", {}), OPENAPI);
  const manifest = (await (await fetch(`${probe.origin}/__sim/manifest`)).json()) as {
    users: Record<string, { apiKey: string }>;
  };
  await probe.stop();
  const authMe = {
    path: "/api/v1/auth/me",
    headers: { authorization: `Bearer ${manifest.users.owner?.apiKey}` },
  };
  const user: TargetSpec = {
    name: "simulator",
    description: "audience-research-sim serve",
    base: "/api/v1",
    args: (port) => ["bin/audience-research-sim.cjs", "serve", "--port", String(port), "--host", "127.0.0.1"],
  };
  const bareJs: TargetSpec = {
    name: "node:http",
    description: "node:http in plain JavaScript",
    base: "/api/v1",
    args: (port) => [
      "-e",
      `require("node:http").createServer((q, s) => s.end("{}")).listen(${port}, "127.0.0.1")`,
    ],
  };
  // The first start keeps the code for the next ones (on its stop, at the latest).
  const first = await launch(user, authMe);
  await first.stop();
  const asUsers: number[] = [];
  const bareJsRuns: number[] = [];
  for (let i = 0; i < samples; i++) {
    for (const [spec, into, probeAt] of [
      [user, asUsers, authMe],
      [bareJs, bareJsRuns, OPENAPI],
    ] as const) {
      const r = await launch(spec, probeAt);
      into.push(r.startupMs);
      await r.stop();
    }
  }
  return {
    asUsersMs: { median: median(asUsers), samples: asUsers },
    bareJsMs: { median: median(bareJsRuns), samples: bareJsRuns },
    firstMs: first.startupMs,
  };
}

export function printStartup(r: StartupResult): string {
  const bareMs = r.bareMs.median;
  const vs = (ms: number) =>
    bareMs ? ` (${(ms / bareMs).toFixed(2)}x bare node:http's ${bareMs.toFixed(0)} ms)` : "";
  return [
    "",
    `Start-up, spawn to the first 200 of /_openapi.json (median of ${r.samples})`,
    `  plain: ${r.openapiMs.median.toFixed(0)} ms${vs(r.openapiMs.median)}; samples ${r.openapiMs.samples.map((s) => s.toFixed(0)).join(", ")}`,
    ...(r.savedMs.samples.length === 0
      ? ["  --state-file with saved sandboxes: not run (--saved-sandboxes 0)"]
      : [
          `  --state-file with ${r.savedSandboxes} saved sandboxes: ${r.savedMs.median.toFixed(0)} ms${vs(r.savedMs.median)}; samples ${r.savedMs.samples.map((s) => s.toFixed(0)).join(", ")}`,
          `  saved sandboxes answering with their own change after the restart: ${r.answeringAfter} of ${r.savedSandboxes}`,
        ]),
    `  as users start it (audience-research-sim serve, no flags) to the first 200 of auth/me: ${r.asUsersMs.median.toFixed(0)} ms, ${(r.asUsersMs.median / r.bareJsMs.median).toFixed(2)}x node:http in plain JavaScript (${r.bareJsMs.median.toFixed(0)} ms; bench/servers/bare.ts, whose types Node strips at start, takes ${bareMs.toFixed(0)} ms)`,
    `  the first start after an install or a build (no code cache yet): ${r.firstMs.toFixed(0)} ms`,
    "",
  ].join("\n");
}
