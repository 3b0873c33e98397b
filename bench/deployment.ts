/**
 * The conformance kit against a deployment, under `npm run bench` (alone: `--deployment-only`): the
 * simulator started as a backend team's staging would be (`--clock real`, the contract's rate limit of
 * 300 requests a minute per account, the control plane behind a token the kit is never given), the kit
 * handed only a config written from the manifest, timed from the kit's spawn to its exit; what it
 * reported (violations, checks left for `--deep`, leftovers) is read back from its reports. The baseline,
 * in the same run: the same kit against a simulator it may reset and whose clock it moves (`--target`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configOf } from "../conformance/lib/config-of.ts";
import { accountOf } from "../conformance/lib/http.ts";
import type { Manifest } from "../src/core/manifest.ts";
import { launch, ROOT, targetSpec } from "./lib/servers.ts";

export interface KitRun {
  wallMs: number;
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
    const sim = await launch(plain, { path: "/__sim/manifest", headers: {} });
    let simulator: KitRun;
    try {
      log(`kit against the simulator (--target ${sim.origin}) …`);
      simulator = await kit(["--target", sim.origin], join(dir, "simulator"));
    } finally {
      await sim.stop();
    }
    const server = await launch(staging, {
      path: "/__sim/manifest",
      headers: { "x-sim-control-token": TOKEN },
    });
    let deployment: KitRun;
    try {
      const res = await fetch(`${server.origin}/__sim/manifest`, {
        headers: { "x-sim-control-token": TOKEN },
      });
      const manifest = (await res.json()) as Manifest;
      const config = join(dir, "staging.json");
      writeFileSync(config, JSON.stringify(configOf(manifest, server.origin, { rateLimitPerMinute: 300 })));
      log(`kit against a deployment (--config, --clock real, 300 requests a minute) …`);
      deployment = await kit(["--config", config], join(dir, "deployment"));
    } finally {
      await server.stop();
    }
    const result = {
      deployment,
      simulator,
      deploymentOverSimulator: deployment.wallMs / simulator.wallMs,
    };
    log(
      `kit: deployment ${(deployment.wallMs / 1000).toFixed(1)} s (${deployment.violations} violations, ${deployment.leftovers} leftovers, busiest account ${deployment.busiestAccount.label} ${deployment.busiestAccount.requests} requests), simulator ${(simulator.wallMs / 1000).toFixed(1)} s: ${result.deploymentOverSimulator.toFixed(2)}x`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the kit's CLI with `args`, its reports in `reports`, and reads back what it found. */
async function kit(args: string[], reports: string): Promise<KitRun> {
  const json = join(reports, "kit.json");
  const started = performance.now();
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "conformance/cli.ts", ...args, "--reporter", "dot", "--reporter", `json=${json}`],
      {
        cwd: ROOT,
        stdio: ["ignore", "ignore", "inherit"],
        env: { ...process.env, CONFORMANCE_REPORTS_DIR: reports, NO_COLOR: "1" },
      },
    );
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
    exitCode,
    checks: { passed: count("passed"), failed: count("failed"), skipped: count("skipped") },
    violations: found.violations.length,
    leftovers: found.leftovers.length,
    busiestAccount: { label, requests },
  };
}
