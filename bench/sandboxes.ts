/**
 * Sandboxes under `npm run bench`: for each count, a fresh simulator process (the built `npm start`)
 * gets that many `POST /__sim/sandboxes`; we time each creation, read the process's resident memory
 * before and after, and check that every sandbox answers its owner's key. The baseline, measured in the
 * same process just before, is a full world build: a reset to a seed never built before.
 */
import { median } from "./lib/load.ts";
import { rssBytes } from "./lib/proc.ts";
import { launch, targetSpec } from "./lib/servers.ts";

export interface SandboxResult {
  count: number;
  createP50Ms: number;
  createP95Ms: number;
  /** A full world build (reset to an unseen seed), median of 5: the baseline of the ratios. */
  fullBuildMs: number;
  p95OverFullBuild: number;
  rssPerSandboxMB: number;
  /** Resident memory of the process with only the default world, for scale. */
  rssBaseMB: number;
  rssPerSandboxOverBase: number;
  answering: number;
}

const MB = 1024 * 1024;

interface Made {
  manifest: { users: Record<string, { apiKey: string }> };
}

/** A timed JSON POST to a control-plane path; a status of 300 or more throws. */
export async function post<T = Made>(
  origin: string,
  path: string,
  body: unknown,
): Promise<{ ms: number; json: T }> {
  const t = performance.now();
  const res = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  const ms = performance.now() - t;
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return { ms, json };
}

const settle = () => new Promise((r) => setTimeout(r, 300));

/** `body` is what each `POST /__sim/sandboxes` sends: `{}` (the default scenario), or an inline scenario. */
export async function benchSandboxes(
  count: number,
  log: (line: string) => void,
  body: Record<string, unknown> = {},
): Promise<SandboxResult> {
  const spec = targetSpec("simulator", {});
  const base = spec.args;
  const sim = await launch(
    { ...spec, args: (port) => [...base(port), "--max-sandboxes", String(count)] },
    { path: "/_openapi.json", headers: {} },
  );
  try {
    const builds: number[] = [];
    for (let i = 0; i < 5; i++)
      builds.push((await post(sim.origin, "/__sim/reset", { seed: 90_000 + i })).ms);
    await post(sim.origin, "/__sim/reset", { seed: 1 });
    await settle();
    const rss0 = rssBytes(sim.pid);
    const times: number[] = [];
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const { ms, json } = await post(sim.origin, "/__sim/sandboxes", body);
      times.push(ms);
      keys.push(Object.values(json.manifest.users)[0]?.apiKey ?? "");
      if ((i + 1) % 250 === 0) log(`sandboxes: ${i + 1} of ${count} made`);
    }
    await settle();
    const rss1 = rssBytes(sim.pid);
    let answering = 0;
    for (const key of keys) {
      const res = await fetch(`${sim.origin}/api/v1/auth/me`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await res.arrayBuffer();
      if (res.status === 200) answering++;
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))] as number;
    const fullBuildMs = median(builds);
    const rssPerSandboxMB = (rss1 - rss0) / count / MB;
    return {
      count,
      createP50Ms: at(0.5),
      createP95Ms: at(0.95),
      fullBuildMs,
      p95OverFullBuild: at(0.95) / fullBuildMs,
      rssPerSandboxMB,
      rssBaseMB: rss0 / MB,
      rssPerSandboxOverBase: rssPerSandboxMB / (rss0 / MB),
      answering,
    };
  } finally {
    await sim.stop();
  }
}

export function printSandboxes(results: readonly SandboxResult[]): string {
  const lines = [
    "",
    "Sandboxes (POST /__sim/sandboxes on one process; baseline: a full world build in the same process)",
    "  count  create p50  create p95  full build  p95/build  RSS/sandbox  RSS base  per-sandbox/base  answering",
  ];
  for (const r of results)
    lines.push(
      `  ${String(r.count).padStart(5)}  ${r.createP50Ms.toFixed(1).padStart(7)} ms  ${r.createP95Ms.toFixed(1).padStart(7)} ms  ${r.fullBuildMs.toFixed(1).padStart(7)} ms  ${r.p95OverFullBuild.toFixed(2).padStart(9)}  ${r.rssPerSandboxMB.toFixed(2).padStart(8)} MB  ${r.rssBaseMB.toFixed(0).padStart(5)} MB  ${r.rssPerSandboxOverBase.toFixed(4).padStart(16)}  ${r.answering}/${r.count}`,
    );
  return `${lines.join("\n")}\n`;
}
