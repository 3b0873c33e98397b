/**
 * The targets `npm run bench` checks its report against: the issues' figures, and where a figure was set
 * against a baseline machine, the same figure as a ratio to a baseline measured in the same run.
 */

import { median } from "./load.ts";
import type { Report, Result, TargetCheck } from "./report.ts";
import type { TargetName } from "./servers.ts";
import type { EndpointId } from "./workloads.ts";

export function checks(r: Report): TargetCheck[] {
  const get = (t: TargetName, e: EndpointId): Result | undefined =>
    r.results.find((x) => x.target === t && x.endpoint === e);
  const ratio = (e: EndpointId, peer: TargetName): number => {
    const a = get("simulator", e);
    const b = get(peer, e);
    return a && b && !b.na ? a.rps / b.rps : Number.NaN;
  };
  const out: TargetCheck[] = [];
  const add = (
    what: string,
    value: number,
    op: ">=" | "<",
    limit: number,
    unit: string,
    note?: string,
  ): void => {
    const pass = Number.isNaN(value) ? null : op === ">=" ? value >= limit : value < limit;
    out.push({ what, value, limit, op, unit, pass, ...(note ? { note } : {}) });
  };
  // A peer ratio cannot pass node:http's own ratio to that peer: on a machine where node:http is slow
  // against the baseline (48k req/s, Prism static 0.043 of it), the peer targets may be out of reach.
  const ceiling = (e: EndpointId, peer: TargetName): string | undefined => {
    const bare = get("node:http", e);
    const p = get(peer, e);
    return bare && p && !p.na ? `ceiling: node:http is ${(bare.rps / p.rps).toFixed(2)}x ${peer}` : undefined;
  };
  const cpu = (t: TargetName): number => get(t, "auth-me")?.cpuUs ?? Number.NaN;
  add("auth/me rate vs bare node:http", ratio("auth-me", "node:http"), ">=", 0.5, "x");
  add(
    "auth/me rate vs Prism static",
    ratio("auth-me", "prism-static"),
    ">=",
    10,
    "x",
    ceiling("auth-me", "prism-static"),
  );
  add("auth/me rate vs Scalar", ratio("auth-me", "scalar"), ">=", 3, "x", ceiling("auth-me", "scalar"));
  add(
    "auth/me server CPU per request",
    cpu("simulator"),
    "<",
    40,
    "µs",
    Number.isNaN(cpu("node:http")) ? undefined : `node:http: ${cpu("node:http").toFixed(1)} µs`,
  );
  // CPU per request beside bare node:http's, as the median of each round's ratio: the two are measured
  // back to back, so a round in which the (shared) machine is slow is slow for both.
  const cpuRatio = (e: EndpointId): number => {
    const sim = get("simulator", e);
    const bare = get("node:http", e);
    if (!sim || !bare) return Number.NaN;
    return median(sim.rounds.map((r, i) => r.cpuUs / (bare.rounds[i]?.cpuUs ?? Number.NaN)));
  };
  const cpuNote = (e: EndpointId) => {
    const sim = get("simulator", e);
    const bare = get("node:http", e);
    return sim && bare ? `${sim.cpuUs.toFixed(1)} µs against ${bare.cpuUs.toFixed(1)} (medians)` : undefined;
  };
  add("auth/me server CPU ÷ node:http's", cpuRatio("auth-me"), "<", 1.5, "x", cpuNote("auth-me"));
  add("audience detail server CPU ÷ node:http's", cpuRatio("audience"), "<", 3, "x", cpuNote("audience"));
  // Issue 26: the paths users hit when they do real work, against the same ceiling.
  add("mixed read/write rate vs bare node:http", ratio("mixed", "node:http"), ">=", 0.25, "x");
  add("NDJSON preview rate vs bare node:http", ratio("preview", "node:http"), ">=", 0.12, "x");
  add(
    "audience detail rate vs Prism static",
    ratio("audience", "prism-static"),
    ">=",
    5,
    "x",
    ceiling("audience", "prism-static"),
  );
  add("filter-attributes on large p99", get("simulator", "filter")?.p99Ms ?? Number.NaN, "<", 20, "ms");
  // Durability's price: every write waits for the fsync that covers it (shared by the writes around it).
  const writes = get("simulator", "writes");
  const durable = get("simulator+state-file", "writes");
  add(
    "writes with --state-file vs without",
    writes && durable ? durable.rps / writes.rps : Number.NaN,
    ">=",
    0.5,
    "x",
  );
  add(
    "p99 a write gains with --state-file",
    writes && durable ? durable.p99Ms - writes.p99Ms : Number.NaN,
    "<",
    10,
    "ms",
    durable ? `p50 ${durable.p50Ms.toFixed(2)} ms, p99 ${durable.p99Ms.toFixed(2)} ms with it` : undefined,
  );
  add(
    "the same, every answer computed, p99",
    get("simulator", "filter-varied")?.p99Ms ?? Number.NaN,
    "<",
    20,
    "ms",
  );
  add("start-up to first 200 (median)", r.startupMs.simulator?.median ?? Number.NaN, "<", 400, "ms");
  if (r.startup) {
    const s = r.startup;
    const bare = s.bareMs.median;
    const note = (ms: number) => `${(ms / bare).toFixed(2)}x bare node:http's ${bare.toFixed(0)} ms`;
    // The 150 and 250 ms were set against bare node:http starting in 84 ms: the same targets as
    // ratios to bare node:http started in turn in this run, which a shared, noisy machine can be held to.
    add(
      "start-up to the first 200 of /_openapi.json",
      s.openapiMs.median,
      "<",
      150,
      "ms",
      note(s.openapiMs.median),
    );
    add("  ÷ bare node:http's start-up", s.openapiMs.median / bare, "<", 150 / 84, "x");
    add(
      "start-up as users start it ÷ node:http in plain JavaScript",
      s.asUsersMs.median / s.bareJsMs.median,
      "<",
      1.5,
      "x",
      `${s.asUsersMs.median.toFixed(0)} ms against ${s.bareJsMs.median.toFixed(0)} ms`,
    );
    if (s.savedSandboxes > 0) {
      const what = `the same with --state-file and ${s.savedSandboxes} saved sandboxes`;
      add(what, s.savedMs.median, "<", 250, "ms", note(s.savedMs.median));
      add("  ÷ bare node:http's start-up", s.savedMs.median / bare, "<", 250 / 84, "x");
      add("saved sandboxes answering after the restart", s.answeringAfter, ">=", s.savedSandboxes, "");
    }
  }
  add("RSS after the run", r.rssEndMB.simulator ?? Number.NaN, "<", 120, "MB");
  add(
    `RSS growth over the soak (${r.soak?.requests ?? 0} requests)`,
    r.soak?.growthPct ?? Number.NaN,
    "<",
    10,
    "%",
  );
  if (r.worlds) {
    const w = r.worlds;
    const note = `${w.fileBuildMs.toFixed(1)} ms against ${w.defaultBuildMs.toFixed(1)} ms`;
    add("world from a 5,000-Mind document ÷ the default's build", w.fileOverDefault, "<", 1.5, "x", note);
    add("inline-scenario sandbox creation p95 ÷ the default's", w.inlineP95OverDefault, "<", 1.5, "x");
    add("RSS per inline-scenario sandbox ÷ the default's", w.inlineRssOverDefault, "<", 1.5, "x");
  }
  if (r.proxy) {
    const p = r.proxy;
    const note = `p50 ${p.direct.p50Ms.toFixed(3)} → ${p.proxied.p50Ms.toFixed(3)} ms over ${p.requests} requests`;
    add("proxy: p50 it adds to auth/me", p.addedP50Ms, "<", 0.25, "ms", note);
    add(
      "proxy: CPU per exchange",
      p.proxyCpuUsPerExchange,
      "<",
      150,
      "µs",
      `${p.cpuRatio.toFixed(2)}x a bare node:http forwarder's ${p.forwarderCpuUsPerExchange.toFixed(0)} µs`,
    );
    add("proxy: violations on the simulator's answers", p.violations, "<", 1, "");
  }
  if (r.deployment) {
    const d = r.deployment.deployment;
    const base = r.deployment.simulator;
    const note = `${r.deployment.deploymentOverSimulator.toFixed(2)}x the kit against the simulator (${(base.wallMs / 1000).toFixed(1)} s); busiest account ${d.busiestAccount.label} ${d.busiestAccount.requests} requests`;
    add("kit against a deployment at 300/min: wall time", d.wallMs / 1000, "<", 30, "s", note);
    // Each misbehaving deployment beside the clean run of the same bench: a verdict within a minute.
    const beside = (k: typeof d, exit: number) =>
      `exit ${k.exitCode} (want ${exit}); ${(k.wallMs / d.wallMs).toFixed(2)}x the clean run (${(d.wallMs / 1000).toFixed(1)} s)`;
    const timed = (what: string, k: typeof d, exit: number) =>
      add(
        `kit against a deployment ${what}: exit time`,
        k.exitCode === exit ? k.wallMs / 1000 : Number.POSITIVE_INFINITY,
        "<",
        60,
        "s",
        beside(k, exit),
      );
    timed("with one fault", r.deployment.faulty.deployment, 1);
    timed("whose machine never finishes", r.deployment.neverFinishes, 2);
    timed("that stops answering", r.deployment.stops, 2);
    add("kit against a deployment: violations", d.violations, "<", 1, "");
    add("kit against a deployment: leftovers", d.leftovers, "<", 1, "");
  }
  for (const sb of r.sandboxes) {
    const note = `full world build ${sb.fullBuildMs.toFixed(1)} ms; p95 is ${sb.p95OverFullBuild.toFixed(2)}x it`;
    add(`sandbox creation p95, ${sb.count} sandboxes`, sb.createP95Ms, "<", 100, "ms", note);
    add(
      `RSS growth per sandbox, ${sb.count} sandboxes`,
      sb.rssPerSandboxMB,
      "<",
      sb.count >= 1000 ? 0.25 : 2,
      "MB",
    );
    add(`sandboxes answering, of ${sb.count}`, sb.answering, ">=", sb.count, "");
  }
  return out;
}
