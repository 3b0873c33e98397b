/**
 * The conformance kit against a deployment, under `npm run bench` (alone: `--deployment-only`): the
 * simulator started as a backend team's staging would be (`--clock real`, the contract's rate limit of
 * 300 requests a minute per account, the control plane behind a token the kit is never given), the kit
 * handed only a config written from the manifest, timed from the kit's spawn to its exit; what it
 * reported (violations, checks left for `--deep`, leftovers) is read back from its reports. The baseline,
 * in the same run: the same kit against a simulator it may reset and whose clock it moves (`--target`).
 *
 * Each kind of target is also run with one fault (every 429 answered with `Retry-After: 0`), timing the
 * first verdict (the kit's first `! found by` line) and the whole run to its exit: how long a merge waits
 * for a red light. And the deployment twice more as it may misbehave in time, the kit left to its default
 * time budget (60 s for a quick run): a machine that never finishes (every new Formation stays `building`,
 * the config's deadlines the stated defaults) and a target that stops answering 10 s into the run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accountOf } from "../conformance/lib/http/http.ts";
import { configOf } from "../conformance/lib/planning/config-of.ts";
import { FAULTS } from "../conformance/selftest/faults.ts";
import { brokenServer, deploymentServer, type Fault } from "../conformance/selftest/harness.ts";
import { buildsNeverFinish, stopsAfter } from "../conformance/selftest/misbehaving.ts";
import type { Manifest } from "../src/core/world/manifest.ts";
import { launch, ROOT, targetSpec } from "./lib/servers.ts";

export interface KitRun {
  wallMs: number;
  /** From the kit's spawn to its first printed violation; null when it found none. */
  firstVerdictMs: number | null;
  exitCode: number;
  checks: { passed: number; failed: number; skipped: number };
  violations: number;
  leftovers: number;
  /** The most requests one account spent in the run (a deployment allows 300 a minute). */
  busiestAccount: { label: string; requests: number };
}

export interface DeploymentResult {
  deployment: KitRun;
  simulator: KitRun;
  deploymentOverSimulator: number;
  /** The same two with one fault in front of the target. */
  faulty: { deployment: KitRun; simulator: KitRun };
  /** The deployment whose new Formations never finish, and the one that stops answering part way. */
  neverFinishes: KitRun;
  stops: KitRun;
}

const TOKEN = "bench-operator";

export async function benchDeployment(log: (line: string) => void): Promise<DeploymentResult> {
  const plain = targetSpec("simulator", {});
  // The bench's simulator, as staging: real time, the contract's rate limit, a closed control plane.
  const staging = {
    ...plain,
    description: `${plain.description.replace(/--clock manual.*/, "")}--clock real --control-token (as staging: the contract's rate limit)`,
    args: (port: number) => {
      const args = plain.args(port);
      const at = args.indexOf("--clock");
      args.splice(at, 2, "--clock", "real", "--control-token", TOKEN);
      const limit = args.indexOf("--rate-limit");
      args.splice(limit, 2);
      return args;
    },
  };
  const dir = mkdtempSync(join(tmpdir(), "bench-deployment-"));
  try {
    const onSimulator = async (label: string): Promise<KitRun> => {
      const sim = await launch(plain, { path: "/__sim/manifest", headers: {} });
      try {
        log(`kit against the simulator (--target ${sim.origin}) …`);
        return await kit(["--target", sim.origin], join(dir, label));
      } finally {
        await sim.stop();
      }
    };
    const onDeployment = async (label: string): Promise<KitRun> => {
      const server = await launch(staging, {
        path: "/__sim/manifest",
        headers: { "x-sim-control-token": TOKEN },
      });
      try {
        const res = await fetch(`${server.origin}/__sim/manifest`, {
          headers: { "x-sim-control-token": TOKEN },
        });
        const manifest = (await res.json()) as Manifest;
        const config = join(dir, `${label}.json`);
        writeFileSync(config, JSON.stringify(configOf(manifest, server.origin, { rateLimitPerMinute: 300 })));
        log(`kit against a deployment (--config, --clock real, 300 requests a minute) …`);
        return await kit(["--config", config], join(dir, label));
      } finally {
        await server.stop();
      }
    };
    // The same two with one fault, served in this process by the self-test's harness (the simulator's own
    // host, the fault between it and the core): a proxy in front would add node:http's defaults, which
    // the kit rightly reports too.
    const faultySimulator = async (): Promise<KitRun> => {
      const server = await brokenServer(ONE_FAULT.fault);
      try {
        log(`kit against the simulator with one fault (${ONE_FAULT.name}) …`);
        return await kit(["--target", server.info.baseUrl], join(dir, "simulator-fault"));
      } finally {
        await server.close();
      }
    };
    const faultyDeployment = async (fault: Fault, label: string, what: string): Promise<KitRun> => {
      const server = await deploymentServer(fault, "host", { speed: 1, rateLimitPerMinute: 300 });
      try {
        const config = join(dir, `${label}.json`);
        const manifest = server.sim.manifest();
        writeFileSync(
          config,
          JSON.stringify(configOf(manifest, server.info.baseUrl, { rateLimitPerMinute: 300 })),
        );
        log(`kit against a deployment ${what} …`);
        return await kit(["--config", config], join(dir, label));
      } finally {
        await server.close();
      }
    };
    const simulator = await onSimulator("simulator");
    const deployment = await onDeployment("deployment");
    const faulty = {
      simulator: await faultySimulator(),
      deployment: await faultyDeployment(
        ONE_FAULT.fault,
        "deployment-fault",
        `with one fault (${ONE_FAULT.name})`,
      ),
    };
    const neverFinishes = await faultyDeployment(
      buildsNeverFinish,
      "never-finishes",
      "whose new Formations never finish",
    );
    const stops = await faultyDeployment(stopsAfter(10_000), "stops", "that stops answering after 10 s");
    const result = {
      deployment,
      simulator,
      deploymentOverSimulator: deployment.wallMs / simulator.wallMs,
      faulty,
      neverFinishes,
      stops,
    };
    const s = (ms: number | null) => (ms === null ? "none" : `${(ms / 1000).toFixed(1)} s`);
    log(
      `kit: deployment ${s(deployment.wallMs)} (${deployment.violations} violations, ${deployment.leftovers} leftovers, busiest account ${deployment.busiestAccount.label} ${deployment.busiestAccount.requests} requests), simulator ${s(simulator.wallMs)}: ${result.deploymentOverSimulator.toFixed(2)}x`,
    );
    log(
      `kit with one fault: simulator first verdict ${s(faulty.simulator.firstVerdictMs)}, exit ${faulty.simulator.exitCode} after ${s(faulty.simulator.wallMs)}; deployment first verdict ${s(faulty.deployment.firstVerdictMs)}, exit ${faulty.deployment.exitCode} after ${s(faulty.deployment.wallMs)}`,
    );
    log(
      `kit against a deployment that never finishes: exit ${neverFinishes.exitCode} after ${s(neverFinishes.wallMs)}; that stops: exit ${stops.exitCode} after ${s(stops.wallMs)}`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fault of the faulty runs: a rule only the rate-limit check judges, late in a simulator run. */
const ONE_FAULT = (() => {
  const found = FAULTS.find((f) => f.name.startsWith("Retry-After: 0 on a 429"));
  if (!found) throw new Error("bench: the self-test has no Retry-After: 0 fault");
  return found;
})();

/** Runs the kit's CLI with `args`, its reports in `reports`, and reads back what it found. */
async function kit(args: string[], reports: string): Promise<KitRun> {
  const json = join(reports, "kit.json");
  const started = performance.now();
  let firstVerdictMs: number | null = null;
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "conformance/cli.ts",
        ...args,
        "--reporter",
        "default",
        "--reporter",
        `json=${json}`,
      ],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, CONFORMANCE_REPORTS_DIR: reports, NO_COLOR: "1" },
      },
    );
    // The first violation the kit prints, as it finds it.
    child.stdout.on("data", (chunk: Buffer) => {
      if (firstVerdictMs === null && chunk.toString().includes("! found by "))
        firstVerdictMs = performance.now() - started;
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? -1));
  });
  const wallMs = performance.now() - started;
  const report = JSON.parse(readFileSync(json, "utf8")) as {
    checks: { status: string; requests: Record<string, number> }[];
  };
  const found = JSON.parse(readFileSync(join(reports, "conformance-violations.json"), "utf8")) as {
    violations: unknown[];
    leftovers: unknown[];
  };
  const byAccount = new Map<string, number>();
  for (const c of report.checks)
    for (const [label, n] of Object.entries(c.requests)) {
      if (label === "none") continue;
      const account = accountOf(label);
      byAccount.set(account, (byAccount.get(account) ?? 0) + n);
    }
  const [label, requests] = [...byAccount].sort((a, b) => b[1] - a[1])[0] ?? ["none", 0];
  const count = (s: string) => report.checks.filter((c) => c.status === s).length;
  return {
    wallMs,
    firstVerdictMs,
    exitCode,
    checks: { passed: count("passed"), failed: count("failed"), skipped: count("skipped") },
    violations: found.violations.length,
    leftovers: found.leftovers.length,
    busiestAccount: { label, requests },
  };
}
