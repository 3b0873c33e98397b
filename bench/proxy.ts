/**
 * What the validating proxy adds, under `npm run bench` (alone: `--proxy-only`): `GET /api/v1/auth/me`
 * sent one at a time over a kept-alive connection, to the simulator directly and through the proxy in
 * front of it (`audience-research-sim proxy`, the package's command), in alternating rounds so that the
 * machine's noise falls on both alike. Reported: p50 and p99 of each and the difference, and the proxy
 * process's CPU per exchange (judging included).
 */
import { spawn } from "node:child_process";
import { Agent, request } from "undici";
import { percentile } from "./lib/load.ts";
import { cpuSeconds } from "./lib/proc.ts";
import { launch, ROOT, targetSpec } from "./lib/servers.ts";

export interface ProxyResult {
  requests: number;
  direct: { p50Ms: number; p99Ms: number };
  proxied: { p50Ms: number; p99Ms: number };
  addedP50Ms: number;
  addedP99Ms: number;
  proxyCpuUsPerExchange: number;
  /** The bare forwarder's (bench/servers/forwarder.ts) CPU per exchange, measured in the same rounds. */
  forwarderCpuUsPerExchange: number;
  /** The proxy's CPU per exchange ÷ the bare forwarder's. */
  cpuRatio: number;
  violations: number;
}

/** Starts a process and waits for the line that says where it listens. */
async function started(args: string[], says: string): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}) before listening`)));
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes(says)) resolve();
    });
  });
  return child;
}

const ROUNDS = 10;
/**
 * /proc counts CPU in clock ticks (10 ms): a round must be long enough that a tick is a small part of it
 * (300 requests a round, about 45 ms of the proxy's CPU, put ±20% on one round's figure).
 */
const PER_ROUND = 1000;

export async function benchProxy(log: (line: string) => void): Promise<ProxyResult> {
  const sim = await launch(targetSpec("simulator", {}), { path: "/__sim/manifest", headers: {} });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const proxy = await started(
    ["bin/audience-research-sim.cjs", "proxy", "--upstream", sim.origin, "--port", String(port), "--quiet"],
    "proxy: http://",
  );
  const forwarder = await started(
    ["--import", "tsx", "bench/servers/forwarder.ts", sim.origin, String(port + 1)],
    "forwarder: http://",
  );
  const origin = `http://127.0.0.1:${port}`;
  const bare = `http://127.0.0.1:${port + 1}`;
  try {
    const manifest = (await (await fetch(`${sim.origin}/__sim/manifest`)).json()) as {
      users: Record<string, { apiKey: string }>;
    };
    const headers = { authorization: `Bearer ${manifest.users.owner?.apiKey}` };
    const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 30_000 });
    const time = async (base: string): Promise<number> => {
      const started = performance.now();
      const res = await request(`${base}/api/v1/auth/me`, { headers, dispatcher: agent });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${base}: auth/me answered ${res.statusCode}`);
      return performance.now() - started;
    };
    // Warm both paths (JIT, connections).
    for (let i = 0; i < 2000; i++) {
      await time(sim.origin);
      await time(origin);
      await time(bare);
    }
    const direct: number[] = [];
    const proxied: number[] = [];
    let cpu = 0;
    let bareCpu = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) direct.push(await time(sim.origin));
      const before = cpuSeconds(proxy.pid ?? -1);
      for (let i = 0; i < PER_ROUND; i++) proxied.push(await time(origin));
      cpu += cpuSeconds(proxy.pid ?? -1) - before;
      const bareBefore = cpuSeconds(forwarder.pid ?? -1);
      for (let i = 0; i < PER_ROUND; i++) await time(bare);
      bareCpu += cpuSeconds(forwarder.pid ?? -1) - bareBefore;
    }
    const report = (await (await fetch(`${origin}/__proxy/report`)).json()) as { violations: unknown[] };
    await agent.close();
    const stats = (xs: number[]) => {
      const sorted = Float64Array.from(xs).sort();
      return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
    };
    const d = stats(direct);
    const p = stats(proxied);
    const result: ProxyResult = {
      requests: proxied.length,
      direct: d,
      proxied: p,
      addedP50Ms: p.p50Ms - d.p50Ms,
      addedP99Ms: p.p99Ms - d.p99Ms,
      proxyCpuUsPerExchange: (cpu * 1e6) / proxied.length,
      forwarderCpuUsPerExchange: (bareCpu * 1e6) / proxied.length,
      cpuRatio: cpu / bareCpu,
      violations: report.violations.length,
    };
    log(
      `proxy: auth/me p50 ${d.p50Ms.toFixed(3)} → ${p.p50Ms.toFixed(3)} ms (+${result.addedP50Ms.toFixed(3)}), p99 ${d.p99Ms.toFixed(3)} → ${p.p99Ms.toFixed(3)} ms (+${result.addedP99Ms.toFixed(3)}); proxy CPU ${result.proxyCpuUsPerExchange.toFixed(0)} µs per exchange (${result.cpuRatio.toFixed(2)}x a bare node:http forwarder's ${result.forwarderCpuUsPerExchange.toFixed(0)} µs)`,
    );
    return result;
  } finally {
    forwarder.kill("SIGTERM");
    proxy.kill("SIGTERM");
    await sim.stop();
  }
}
