/**
 * `npm run bench`: the simulator side by side with a bare node:http server (the ceiling), Stoplight Prism
 * (static and dynamic) and Scalar's mock server, all on loopback, each in its own process, driven in turn
 * by autocannon over several rounds. Prints requests/s, latency, server CPU per request and the ratios,
 * start-up time and resident memory, checks the targets of issue 6, and writes reports/bench.json.
 * `--help` lists the flags.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchDeployment } from "./deployment.ts";
import { checks } from "./lib/checks.ts";
import { median, runLoad, type Sample } from "./lib/load.ts";
import { rssBytes } from "./lib/proc.ts";
import { printReport, type Report, type Result } from "./lib/report.ts";
import {
  launch,
  ROOT,
  type Running,
  TARGET_NAMES,
  type TargetName,
  type TargetSpec,
  targetSpec,
} from "./lib/servers.ts";
import {
  DURABLE_ENDPOINTS,
  ENDPOINT_IDS,
  type EndpointId,
  endpointRequests,
  type Fixture,
  SIMULATOR_ONLY,
} from "./lib/workloads.ts";
import { summarizeProfile } from "./profile.ts";
import { benchProxy } from "./proxy.ts";
import { benchSandboxes } from "./sandboxes.ts";
import { benchStartup } from "./startup.ts";
import { benchWorlds } from "./worlds.ts";

const USAGE = `Usage: npm run bench -- [options]

  --duration S          seconds per measurement (default 4)
  --rounds N            rounds over every target and endpoint; medians are reported (default 3)
  --warmup S            seconds of unrecorded load per target and endpoint before round 1 (default 1)
  --connections N       autocannon connections (default 10)
  --targets LIST        comma-separated subset of: ${TARGET_NAMES.join(",")}
  --endpoints LIST      comma-separated subset of: ${ENDPOINT_IDS.join(",")}
  --startup-samples N   times the simulator is started to time its start-up (default 5)
  --soak N              mixed requests driven at the simulator at the end, sampling its RSS (default
                        100000; 1000000 for the issue's one-million run; 0 to skip)
  --soak-only           start only the simulator and run only the soak
  --sandboxes LIST      sandbox counts to create in a fresh simulator each, timing creation and RSS
                        (default 100,1000; 0 to skip)
  --sandboxes-only      run only the sandbox measurement (and the worlds')
  --startup-only        run only the start-up measurements (plain, and with --state-file holding saved
                        sandboxes)
  --saved-sandboxes N   sandboxes saved for the start-up with --state-file (default 1000; 0 to skip it)
  --proxy-only          run only the validating proxy's added latency and CPU (auth/me, beside the
                        simulator alone)
  --deployment-only     run only the kit against a deployment (the simulator as staging: --clock real,
                        300 requests a minute, control plane closed) beside the kit against the simulator
  --worlds-only         run only the worlds measurement: a 5,000-Mind scenario document's build and
                        300 sandboxes from it inline, beside the default scenario's
  --skip LIST           comma-separated parts to leave out of a full run: deployment, proxy
  --profile             run the simulator with --cpu-prof (into reports/cpu/) and print its top functions
  --sim-node-flags F    extra node flags for the simulator, space-separated (e.g. "--max-semi-space-size=2")
  --json FILE           where to write the results (default reports/bench.json)
  -h, --help
`;

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "1" },
    connections: { type: "string", default: "10" },
    targets: { type: "string" },
    endpoints: { type: "string" },
    "startup-samples": { type: "string", default: "5" },
    soak: { type: "string", default: "100000" },
    "soak-only": { type: "boolean", default: false },
    sandboxes: { type: "string", default: "100,1000" },
    "sandboxes-only": { type: "boolean", default: false },
    "worlds-only": { type: "boolean", default: false },
    "deployment-only": { type: "boolean", default: false },
    "proxy-only": { type: "boolean", default: false },
    "startup-only": { type: "boolean", default: false },
    "saved-sandboxes": { type: "string", default: "1000" },
    skip: { type: "string", default: "" },
    profile: { type: "boolean", default: false },
    "sim-node-flags": { type: "string", default: "" },
    json: { type: "string", default: "reports/bench.json" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (flags.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

function num(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) {
    process.stderr.write(`error: --${name} must be a number >= ${min}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}
function list<T extends string>(name: string, value: string | undefined, all: readonly T[]): T[] {
  if (value === undefined) return [...all];
  const picked = value.split(",").map((s) => s.trim());
  for (const p of picked) {
    if (!(all as readonly string[]).includes(p)) {
      process.stderr.write(`error: --${name}: unknown "${p}"; known: ${all.join(", ")}\n`);
      process.exit(2);
    }
  }
  return picked as T[];
}

const duration = num("duration", flags.duration, 0.5);
const rounds = num("rounds", flags.rounds, 1);
const warmup = num("warmup", flags.warmup, 0);
const connections = num("connections", flags.connections, 1);
const worldsOnly = flags["worlds-only"];
const deploymentOnly = flags["deployment-only"];
const proxyOnly = flags["proxy-only"];
const startupOnly = flags["startup-only"];
const sandboxesOnly = flags["sandboxes-only"] || worldsOnly || deploymentOnly || proxyOnly || startupOnly;
const savedSandboxes = num("saved-sandboxes", flags["saved-sandboxes"], 0);
const startupSamples =
  sandboxesOnly && !startupOnly ? 1 : num("startup-samples", flags["startup-samples"], 1);
const soakRequests = sandboxesOnly ? 0 : num("soak", flags.soak, 0);
const soakOnly = flags["soak-only"];
const simulatorOnly = soakOnly || sandboxesOnly;
const targets: TargetName[] = simulatorOnly ? ["simulator"] : list("targets", flags.targets, TARGET_NAMES);
if (!targets.includes("simulator")) targets.unshift("simulator");
const endpoints: EndpointId[] = simulatorOnly ? [] : list("endpoints", flags.endpoints, ENDPOINT_IDS);
const sandboxCounts =
  soakOnly || worldsOnly || deploymentOnly || proxyOnly || startupOnly || flags.sandboxes === "0"
    ? []
    : flags.sandboxes.split(",").map((c) => num("sandboxes", c.trim(), 1));
const skipped = new Set(flags.skip ? list("skip", flags.skip, ["deployment", "proxy"] as const) : []);
const simNodeFlags = flags["sim-node-flags"].split(" ").filter((f) => f !== "");
const jsonPath = path.resolve(ROOT, flags.json);
const reportsDir = path.resolve(ROOT, "reports");
const cpuDir = path.join(reportsDir, "cpu");

const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Manifest {
  users: Record<string, { apiKey: string }>;
  audiences: Record<string, { id: string }>;
  minds: Record<string, { id: string }>;
}

/** While the simulator serves writes, its manual clock is moved one second per second, so the background
 * jobs the writes schedule (member placement, retraining) run as they would for a real client. */
function tickClock(sim: Running): () => void {
  const timer = setInterval(() => {
    fetch(`${sim.origin}/__sim/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"ms":1000}',
    }).then(
      (r) => r.arrayBuffer(),
      () => {},
    );
  }, 1000);
  return () => clearInterval(timer);
}

async function main(): Promise<void> {
  mkdirSync(reportsDir, { recursive: true });
  const specOpts = {
    simNodeFlags: [...simNodeFlags, ...(flags.profile ? ["--cpu-prof", "--cpu-prof-dir", cpuDir] : [])],
    bareBodies: path.join(reportsDir, ".bench-bodies.json"),
  };
  const running = new Map<TargetName, Running>();
  const stopAll = async (): Promise<void> => {
    await Promise.all([...running.values()].map((r) => r.stop()));
  };
  process.once("SIGINT", () => {
    stopAll().finally(() => process.exit(130));
  });

  try {
    // The simulator first: its manifest names the IDs and key every target is asked for.
    log("starting simulator...");
    const simSpec = targetSpec("simulator", specOpts);
    const sim = await launch(simSpec, { path: "/__sim/manifest", headers: {} });
    running.set("simulator", sim);
    const manifest = (await (await fetch(`${sim.origin}/__sim/manifest`)).json()) as Manifest;
    const fixture: Fixture = {
      key: manifest.users.owner?.apiKey ?? "",
      mainId: manifest.audiences.main?.id ?? "",
      largeId: manifest.audiences.large?.id ?? "",
      looseMindId: manifest.minds.ownLoose?.id ?? "",
    };
    const auth = { authorization: `Bearer ${fixture.key}` };

    // The bare server replays the simulator's bytes for the same requests.
    const canned: Record<string, { type: string; body: string }> = {};
    for (const id of ENDPOINT_IDS) {
      if (id === "mixed" || SIMULATOR_ONLY.has(id)) continue;
      for (const r of endpointRequests(id, "/api/v1", fixture)) {
        const res = await fetch(`${sim.origin}${r.path}`, {
          method: r.method ?? "GET",
          headers: r.headers ?? {},
          ...(r.body ? { body: r.body } : {}),
        });
        canned[`${r.method} ${r.path}`] = {
          type: res.headers.get("content-type") ?? "application/json",
          body: await res.text(),
        };
      }
    }
    writeFileSync(specOpts.bareBodies, JSON.stringify(canned));

    const startups: Record<string, number[]> = {};
    for (const name of targets) {
      if (name === "simulator") continue;
      log(`starting ${name}...`);
      const spec = targetSpec(name, specOpts);
      const r = await launch(spec, { path: `${spec.base}/auth/me`, headers: auth });
      running.set(name, r);
      startups[name] = [r.startupMs];
    }
    // Start-up of the simulator, timed alone while the others idle: spawn to the first 200 of auth/me.
    startups.simulator = [];
    for (let i = 0; i < startupSamples; i++) {
      const r = await launch(targetSpec("simulator", { simNodeFlags }), {
        path: `${simSpec.base}/auth/me`,
        headers: auth,
      });
      startups.simulator.push(r.startupMs);
      await r.stop();
    }
    const rssStart: Record<string, number> = {};
    for (const [name, r] of running) rssStart[name] = rssBytes(r.pid);

    /** Which target is measured on which workload. */
    const applies = (t: TargetName, e: EndpointId): boolean =>
      t === "simulator+state-file" ? DURABLE_ENDPOINTS.has(e) : t === "simulator" || !SIMULATOR_ONLY.has(e);
    const samples = new Map<string, Sample[]>();
    const key = (t: TargetName, e: EndpointId): string => `${t} ${e}`;
    const measure = async (t: TargetName, e: EndpointId, seconds: number): Promise<Sample> => {
      const r = running.get(t) as Running;
      const untick = t.startsWith("simulator") && e === "mixed" ? tickClock(r) : () => {};
      try {
        return await runLoad({
          origin: r.origin,
          pid: r.pid,
          requests: endpointRequests(e, r.spec.base, fixture),
          connections,
          duration: seconds,
        });
      } finally {
        untick();
      }
    };

    if (warmup > 0 && endpoints.length > 0) {
      log(`warm-up: ${warmup} s per target and endpoint`);
      for (const e of endpoints) for (const t of targets) if (applies(t, e)) await measure(t, e, warmup);
    }
    for (let round = 0; round < rounds && endpoints.length > 0; round++) {
      log(`round ${round + 1} of ${rounds}`);
      for (const e of endpoints) {
        // The order of the targets rotates each round, so no target always runs right after another.
        const order = targets.map((_, i) => targets[(i + round) % targets.length] as TargetName);
        for (const t of order) {
          if (!applies(t, e)) continue;
          const s = await measure(t, e, duration);
          const list = samples.get(key(t, e)) ?? [];
          list.push(s);
          samples.set(key(t, e), list);
          log(
            `  ${e.padEnd(9)} ${t.padEnd(14)} ${Math.round(s.rps).toString().padStart(6)} req/s  ` +
              `p99 ${s.p99Ms.toFixed(2)} ms  ${s.cpuUs.toFixed(1)} µs/req` +
              (s.non2xx ? `  non-2xx ${s.non2xx}` : ""),
          );
        }
      }
    }

    let soak: Report["soak"] = null;
    if (soakRequests > 0) soak = await runSoak(running.get("simulator") as Running, fixture);

    const rssEnd: Record<string, number> = {};
    for (const [name, r] of running) rssEnd[name] = rssBytes(r.pid);

    const results: Result[] = [];
    for (const t of targets) {
      for (const e of endpoints) {
        if (!applies(t, e)) continue;
        const list = samples.get(key(t, e)) ?? [];
        const requests = list.reduce((a, s) => a + s.requests, 0);
        const non2xx = list.reduce((a, s) => a + s.non2xx, 0);
        const statusCodes: Record<string, number> = {};
        for (const s of list)
          for (const [c, n] of Object.entries(s.statusCodes)) statusCodes[c] = (statusCodes[c] ?? 0) + n;
        const errors = list.reduce((a, s) => a + s.errors, 0);
        results.push({
          target: t,
          endpoint: e,
          rps: median(list.map((s) => s.rps)),
          p50Ms: median(list.map((s) => s.p50Ms)),
          p99Ms: median(list.map((s) => s.p99Ms)),
          cpuUs: median(list.map((s) => s.cpuUs)),
          requests,
          non2xx,
          errors,
          bytesPerResponse: median(list.map((s) => s.bytesPerResponse)),
          statusCodes,
          na: naReason(requests, non2xx, statusCodes),
          rounds: list,
        });
      }
    }

    const report: Report = {
      at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? "",
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
      },
      config: {
        duration,
        rounds,
        warmup,
        connections,
        startupSamples,
        soakRequests,
        simNodeFlags,
        targets,
        endpoints,
      },
      servers: Object.fromEntries(
        targets.map((t) => {
          const spec: TargetSpec = (running.get(t) as Running).spec;
          return [t, { description: spec.description, base: spec.base }];
        }),
      ),
      startupMs: Object.fromEntries(
        Object.entries(startups).map(([k, v]) => [k, { median: median(v), samples: v }]),
      ),
      rssStartMB: mapValues(rssStart, (b) => b / 2 ** 20),
      rssEndMB: mapValues(rssEnd, (b) => b / 2 ** 20),
      results,
      soak,
      sandboxes: [],
      checks: [],
    };
    await stopAll();
    running.clear();
    for (const count of sandboxCounts) {
      log(`sandboxes: ${count} in a fresh simulator`);
      report.sandboxes.push(await benchSandboxes(count, log));
    }
    if (!soakOnly && !deploymentOnly && !proxyOnly && (sandboxCounts.length > 0 || worldsOnly))
      report.worlds = await benchWorlds(log);
    if (startupOnly || (!soakOnly && !sandboxesOnly))
      report.startup = await benchStartup(startupSamples, savedSandboxes, log);
    if (deploymentOnly || (!soakOnly && !sandboxesOnly && !skipped.has("deployment")))
      report.deployment = await benchDeployment(log);
    if (proxyOnly || (!soakOnly && !sandboxesOnly && !skipped.has("proxy")))
      report.proxy = await benchProxy(log);
    report.checks = checks(report);

    printReport(report);
    mkdirSync(path.dirname(jsonPath), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    log(`\nresults written to ${path.relative(process.cwd(), jsonPath) || jsonPath}`);
    if (flags.profile) {
      log(`\nCPU profile of the simulator (${cpuDir}):`);
      process.stdout.write(summarizeProfile(cpuDir, 25));
    }
  } finally {
    await stopAll();
  }
}

function naReason(requests: number, non2xx: number, codes: Record<string, number>): string | null {
  if (requests === 0) return "no responses";
  if (non2xx * 2 <= requests) return null;
  const top = Object.entries(codes)
    .filter(([c]) => !c.startsWith("2"))
    .sort((a, b) => b[1] - a[1])
    .map(([c]) => c)
    .slice(0, 2);
  return `mostly ${top.join("/")}`;
}

function mapValues(o: Record<string, number>, f: (v: number) => number): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

async function runSoak(sim: Running, fixture: Fixture): Promise<NonNullable<Report["soak"]>> {
  const requests = endpointRequests("mixed", sim.spec.base, fixture);
  const warm = Math.min(50_000, Math.max(connections, Math.round(soakRequests / 20)));
  log(`soak: ${warm} mixed requests of warm-up, then ${soakRequests} sampling RSS every second`);
  const untick = tickClock(sim);
  try {
    await runLoad({
      origin: sim.origin,
      pid: sim.pid,
      requests,
      connections,
      amount: warm,
      noLatencies: true,
    });
    const rss: { requests: number; mb: number }[] = [{ requests: 0, mb: rssBytes(sim.pid) / 2 ** 20 }];
    let last = 0;
    const s = await runLoad({
      origin: sim.origin,
      pid: sim.pid,
      requests,
      connections,
      amount: soakRequests,
      noLatencies: true,
      onTick: (done) => {
        rss.push({ requests: done, mb: rssBytes(sim.pid) / 2 ** 20 });
        if (done - last >= 100_000) {
          last = done;
          log(`  ${done} requests, RSS ${(rss.at(-1)?.mb ?? 0).toFixed(1)} MB`);
        }
      },
    });
    rss.push({ requests: s.requests, mb: rssBytes(sim.pid) / 2 ** 20 });
    const startMB = rss[0]?.mb ?? Number.NaN;
    const endMB = rss.at(-1)?.mb ?? Number.NaN;
    const peakMB = Math.max(...rss.map((r) => r.mb));
    return {
      requests: s.requests,
      seconds: s.seconds,
      rps: s.rps,
      non2xx: s.non2xx,
      errors: s.errors,
      statusCodes: s.statusCodes,
      warmupRequests: warm,
      rssStartMB: startMB,
      rssPeakMB: peakMB,
      rssEndMB: endMB,
      growthPct: ((endMB - startMB) / startMB) * 100,
      peakGrowthPct: ((peakMB - startMB) / startMB) * 100,
      samples: rss,
    };
  } finally {
    untick();
  }
}

await main();
