/** The benchmark's results: their shape (also written as reports/bench.json) and the printed tables. */

import type { DeploymentResult } from "../deployment.ts";
import type { ProxyResult } from "../proxy.ts";
import { printSandboxes, type SandboxResult } from "../sandboxes.ts";
import { printStartup, type StartupResult } from "../startup.ts";
import { printWorlds, type WorldsResult } from "../worlds.ts";
import type { Sample } from "./load.ts";
import type { TargetName } from "./servers.ts";
import { ENDPOINT_LABELS, type EndpointId } from "./workloads.ts";

export interface Result {
  target: TargetName;
  endpoint: EndpointId;
  /** Medians over the rounds. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUs: number;
  bytesPerResponse: number;
  /** Totals over the rounds. */
  requests: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** Why the figure does not count as serving the endpoint (most answers not 2xx), or null. */
  na: string | null;
  rounds: Sample[];
}

export interface TargetCheck {
  what: string;
  value: number;
  op: ">=" | "<";
  limit: number;
  unit: string;
  /** null: not measured in this run. */
  pass: boolean | null;
  /** What else this run says about it: the ceiling a ratio can reach here, the same figure for node:http. */
  note?: string;
}

export interface Report {
  at: string;
  machine: { cpus: number; cpuModel: string; node: string; platform: string };
  config: Record<string, unknown>;
  servers: Record<string, { description: string; base: string }>;
  startupMs: Record<string, { median: number; samples: number[] }>;
  rssStartMB: Record<string, number>;
  rssEndMB: Record<string, number>;
  results: Result[];
  sandboxes: SandboxResult[];
  worlds?: WorldsResult;
  startup?: StartupResult;
  deployment?: DeploymentResult;
  proxy?: ProxyResult;
  soak: {
    requests: number;
    seconds: number;
    rps: number;
    non2xx: number;
    errors: number;
    statusCodes: Record<string, number>;
    warmupRequests: number;
    rssStartMB: number;
    rssPeakMB: number;
    rssEndMB: number;
    growthPct: number;
    peakGrowthPct: number;
    samples: { requests: number; mb: number }[];
  } | null;
  checks: TargetCheck[];
}

function table(header: string[], rows: string[][], rightFrom = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i >= rightFrom ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";
const ratio = (n: number): string =>
  Number.isFinite(n) ? `${n >= 10 ? n.toFixed(0) : n.toFixed(2)}x` : "n/a";

export function printReport(r: Report): void {
  const out: string[] = [];
  out.push(
    "",
    `Benchmark: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}; ` +
      `${r.config.connections} connections, ${r.config.rounds} rounds x ${r.config.duration} s per target and ` +
      "endpoint, medians over rounds. CPU is the server process's own (utime+stime) per request.",
  );
  const endpoints = [...new Set(r.results.map((x) => x.endpoint))];
  const byKey = new Map(r.results.map((x) => [`${x.target} ${x.endpoint}`, x]));
  for (const e of endpoints) {
    const bare = byKey.get(`node:http ${e}`);
    const rows = r.results
      .filter((x) => x.endpoint === e)
      .map((x) => [
        x.target,
        fmt(x.rps),
        fmt(x.p50Ms, 2),
        fmt(x.p99Ms, 2),
        fmt(x.cpuUs, 1),
        fmt(x.bytesPerResponse),
        x.non2xx ? `${fmt(x.non2xx)}/${fmt(x.requests)}` : "0",
        bare && !bare.na && !x.na ? ratio(x.rps / bare.rps) : "n/a",
        x.na ? `n/a: ${x.na}` : "",
      ]);
    out.push(
      "",
      ENDPOINT_LABELS[e],
      table(
        [
          "target",
          "req/s",
          "p50 ms",
          "p99 ms",
          "CPU µs/req",
          "bytes/resp",
          "non-2xx",
          "vs node:http",
          "note",
        ],
        rows,
      ),
    );
  }

  const peers = [...new Set(r.results.map((x) => x.target))].filter((t) => t !== "simulator");
  if (peers.length > 0 && endpoints.length > 0) {
    const rows = endpoints.map((e) => {
      const sim = byKey.get(`simulator ${e}`);
      return [
        ENDPOINT_LABELS[e],
        ...peers.map((p) => {
          const x = byKey.get(`${p} ${e}`);
          return sim && x && !x.na && !sim.na ? ratio(sim.rps / x.rps) : "n/a";
        }),
      ];
    });
    out.push("", "Simulator requests/s as a multiple of each peer's", table(["endpoint", ...peers], rows));
  }

  const names = Object.keys(r.startupMs);
  out.push(
    "",
    "Start-up (spawn to first 2xx) and resident memory",
    table(
      ["target", "start-up ms", "RSS at start MB", "RSS after run MB"],
      names.map((n) => [
        n,
        `${fmt(r.startupMs[n]?.median ?? Number.NaN)}${(r.startupMs[n]?.samples.length ?? 0) > 1 ? ` (median of ${r.startupMs[n]?.samples.length})` : ""}`,
        fmt(r.rssStartMB[n] ?? Number.NaN, 1),
        fmt(r.rssEndMB[n] ?? Number.NaN, 1),
      ]),
    ),
  );

  if (r.soak) {
    const s = r.soak;
    out.push(
      "",
      `Soak: ${fmt(s.requests)} mixed requests at ${fmt(s.rps)} req/s (${fmt(s.seconds, 1)} s), ` +
        `non-2xx ${fmt(s.non2xx)}, errors ${fmt(s.errors)}; RSS ${fmt(s.rssStartMB, 1)} MB after ` +
        `${fmt(s.warmupRequests)} warm-up requests, peak ${fmt(s.rssPeakMB, 1)} MB, end ${fmt(s.rssEndMB, 1)} MB ` +
        `(${s.growthPct >= 0 ? "+" : ""}${fmt(s.growthPct, 1)}%)`,
    );
  }

  if (r.sandboxes.length > 0) out.push(printSandboxes(r.sandboxes).trimEnd());
  if (r.worlds) out.push(printWorlds(r.worlds).trimEnd());
  if (r.startup) out.push(printStartup(r.startup).trimEnd());
  if (r.proxy) {
    const p = r.proxy;
    out.push(
      "",
      "The validating proxy (auth/me one at a time, kept-alive, alternating rounds)",
      `  simulator alone: p50 ${p.direct.p50Ms.toFixed(3)} ms, p99 ${p.direct.p99Ms.toFixed(3)} ms`,
      `  through the proxy: p50 ${p.proxied.p50Ms.toFixed(3)} ms, p99 ${p.proxied.p99Ms.toFixed(3)} ms (added p50 ${p.addedP50Ms.toFixed(3)} ms, p99 ${p.addedP99Ms.toFixed(3)} ms)`,
      `  proxy CPU per exchange: ${p.proxyCpuUsPerExchange.toFixed(0)} µs (${p.cpuRatio.toFixed(2)}x a bare node:http forwarder's ${p.forwarderCpuUsPerExchange.toFixed(0)} µs); violations reported: ${p.violations}`,
    );
  }
  if (r.deployment) {
    const line = (name: string, k: DeploymentResult["deployment"]) =>
      `  ${name}: ${(k.wallMs / 1000).toFixed(1)} s, exit ${k.exitCode}${k.firstVerdictMs === null ? "" : `, first verdict after ${(k.firstVerdictMs / 1000).toFixed(1)} s`}; checks ${k.checks.passed} passed, ${k.checks.failed} failed, ${k.checks.skipped} skipped; ${k.violations} violations, ${k.leftovers} leftovers; busiest account ${k.busiestAccount.label} ${k.busiestAccount.requests} requests`;
    out.push(
      "",
      "The conformance kit (clean, and with one fault: Retry-After: 0 on every 429)",
      line("against a deployment (--config; --clock real, 300 requests a minute)", r.deployment.deployment),
      line("against the simulator (--target; baseline)", r.deployment.simulator),
      line("against a deployment, one fault", r.deployment.faulty.deployment),
      line("against the simulator, one fault", r.deployment.faulty.simulator),
      line("against a deployment whose new Formations never finish", r.deployment.neverFinishes),
      line("against a deployment that stops answering after 10 s", r.deployment.stops),
    );
  }

  out.push(
    "",
    "Targets",
    table(
      ["target", "measured", "goal", "result", "in this run"],
      r.checks.map((c) => [
        c.what,
        `${fmt(c.value, c.unit === "x" || c.unit === "%" || Math.abs(c.value) < 1 ? 2 : 1)} ${c.unit}`,
        `${c.op} ${Number.isInteger(c.limit) ? c.limit : c.limit.toFixed(2)} ${c.unit}`,
        c.pass === null ? "not run" : c.pass ? "met" : "MISSED",
        c.note ?? "",
      ]),
      1,
    ),
    "",
  );
  process.stdout.write(`${out.join("\n")}\n`);
}
