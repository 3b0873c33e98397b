/**
 * `npm run conformance -- --target URL [options]`: checks its arguments, reaches the target, then runs
 * every check against it with the kit's own runner (lib/running/runner.ts; no test framework needed). Exit 0:
 * every check held; 1: at least one violation; 2: bad usage, bad config, target unreachable, or a world or
 * config that lacks what the chosen checks need; 3: incomplete (nothing checked, or most checks skipped).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import leven from "leven";
import { type Contract, createContract, ownContract } from "../src/contract/contract.ts";
import { withContract } from "./lib/description/contract.ts";
import { loadContract } from "./lib/description/load-contract.ts";
import {
  ConfigError,
  controlBaseOf,
  discover,
  loadConfig,
  probeDeployment,
  probeSimulator,
  type RunSettings,
  type TargetInfo,
  UnreachableError,
} from "./lib/http/target.ts";
import type { CoverageReport } from "./lib/reporting/coverage.ts";
import { reportsDir, userDir } from "./lib/reporting/paths.ts";
import type { Reporter } from "./lib/running/runner.ts";

const USAGE = `Usage: audience-research-sim conformance --target URL [options]
       audience-research-sim conformance --config FILE [options]
       audience-research-sim conformance --merge-coverage FILE --merge-coverage FILE ...
       audience-research-sim conformance init --target URL [--control-token T] [--out FILE]
       (in a clone of the repository: npm run conformance -- [options])

Runs the conformance suite against a simulator (discovered through GET /__sim/manifest and reset first)
or, with --config, against a real deployment described by the file (see conformance/example.config.json;
\`conformance init --target URL\` writes one: filled in from a simulator's manifest, or, for a deployment,
every field with what to put there).

Options:
  --target URL           base URL of the target (with --config: overrides its baseUrl)
  --config FILE          deployment config: base URL, API keys by role, readable and changeable IDs
  --seed N               fast-check seed (default: random, printed); the same seed replays a run
  --runs N               numRuns of every property (default: each property's own, tuned for < 60 s)
  --read-only            skip every check that changes state (they are reported as skipped)
  --deep                 against a deployment, run every check in full however many rate-limit windows
                         it takes (by default the run is planned to one window per account: checks that
                         do not fit are listed as left for --deep)
  --budget N             start no further check once the run has sent N requests (the rest are
                         reported as skipped, with the budget); each check's line says what it spent
  --time-budget DURATION end the run within DURATION (60s, 5m, 1h), whatever the target does: no check
                         starts after it, and one under way is cut short (exit 2 with what was checked,
                         or 1 if something was found). Default: 60s for a quick run against a deployment,
                         30m for --deep, 10m against a simulator
  --strict               fail the run (exit 3) when a check met an answer it could not judge either way
                         (inconclusive: always listed in the summary, never counted as a pass)
  --relax-wording        take any words where the description states a message (for a deployment
                         that translates its messages); statuses, data.code and fields are judged
  --no-reset             do not reset the simulator first
  --scenario NAME|FILE   the simulator's world for the run: a built-in scenario (default: default) or
                         a scenario document (FILE.json) that keeps the default scenario's handles
                         (one that "extends": "default")
  --control-token T      the simulator's x-sim-control-token (with --sandbox ID: that sandbox's token
                         or the operator's; with --sandbox new: the operator's)
  --sandbox ID|new       run in one sandbox of the simulator (its keys, its control plane), or in a new
                         one the run makes and deletes at the end
  --reporter NAME[=FILE] default or dot (the terminal), junit[=FILE], json[=FILE] or html[=FILE] (a
                         file; by default reports/conformance-junit.xml, reports/conformance-json.json,
                         reports/conformance-html.html: one self-contained page); repeatable
  --junit FILE           also write a JUnit report to FILE (the terminal report stays)
  --json FILE            also write the JSON report to FILE (the terminal report stays)
  --shard I/N            run only shard I of N (every N-th check, for CI machines in parallel)
  -t, --only PATTERN     run only checks whose "name: title" matches PATTERN (e.g. "generic/auth")
  --skip PATTERN         leave out the checks whose "name: title" matches PATTERN
  --replay FILE          re-run one saved failing sequence (reports/sequence-*.json) against the target
  --contract FILE|URL    check against this version of openapi.json (a file, or a URL such as the
                         deployment's /_openapi.json) instead of the one the kit ships with
  --merge-coverage FILE  join the coverage reports of shard runs (repeat it, one per report) into
                         reports/conformance-coverage.json and print the summary; needs no target
  -h, --help             this text

Exit status: 0 every check held; 1 at least one violation; 2 bad usage, bad config, target unreachable
(also one that stops answering mid-run: the run ends there, said once, and the reports hold what was
checked), or a world (--scenario) or config that lacks what the chosen checks need (named; nothing is run: leave
those checks out with --skip, or pick others with --only); 3 incomplete: no violation, but nothing was
checked or more than half of the chosen checks were skipped for reasons not asked for (a budget, a
deployment's plan), so the run is no pass.
Reports: reports/conformance-violations.json and reports/conformance-coverage.json.
`;

class OptionError extends Error {}

const REPORTERS: readonly Reporter["name"][] = ["default", "verbose", "dot", "junit", "json", "html"];

/** What the run itself takes (lib/http/target.ts), less the run ID made per run, plus how vitest reports it. */
interface Options extends Omit<RunSettings, "runId"> {
  budget: { requests: number | null; ms: number | null };
  reporters: Reporter[];
  shard: { index: number; count: number } | null;
  testPattern: string | null;
  skipPattern: string | null;
  replay: string | null;
  contract: string | null;
  strict: boolean;
}

function integer(name: string, raw: string | undefined, min: number): number | null {
  if (raw === undefined) return null;
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw)))
    throw new OptionError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** The kit's options, as parseArgs takes them. */
const KIT_OPTIONS = {
  target: { type: "string" },
  config: { type: "string" },
  seed: { type: "string" },
  runs: { type: "string" },
  "read-only": { type: "boolean" },
  deep: { type: "boolean" },
  budget: { type: "string" },
  "time-budget": { type: "string" },
  "no-reset": { type: "boolean" },
  strict: { type: "boolean" },
  "relax-wording": { type: "boolean" },
  scenario: { type: "string" },
  "control-token": { type: "string" },
  sandbox: { type: "string" },
  reporter: { type: "string", multiple: true },
  junit: { type: "string" },
  json: { type: "string" },
  shard: { type: "string" },
  test: { type: "string", short: "t" },
  only: { type: "string" },
  skip: { type: "string" },
  replay: { type: "string" },
  contract: { type: "string" },
  "merge-coverage": { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;

function parse(argv: string[]): Options | "help" | { merge: string[] } {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: KIT_OPTIONS,
    }));
  } catch (e) {
    // Node's own words for a mistyped option, shorter and with the nearest one the kit knows.
    const given = /^Unknown option '(-[^']+)'/.exec((e as Error).message)?.[1];
    if (given === undefined) throw new OptionError((e as Error).message);
    const near = Object.keys(KIT_OPTIONS).sort((a, b) => leven(given, `--${a}`) - leven(given, `--${b}`))[0];
    throw new OptionError(
      `unknown option ${given}${near && leven(given, `--${near}`) <= 2 ? `: did you mean --${near}?` : ""}`,
    );
  }
  if (values.help) return "help";
  const merge = values["merge-coverage"] as string[] | undefined;
  if (merge?.length) return { merge: merge.map((f) => resolve(userDir(), f)) };
  const target = (values.target as string | undefined) ?? null;
  const config = (values.config as string | undefined) ?? null;
  if (!target && !config)
    throw new OptionError("give --target URL (a simulator) or --config FILE (a deployment)");
  if (target && !/^https?:\/\/[^/\s]+/.test(target))
    throw new OptionError(`--target must be an http(s) URL, got ${JSON.stringify(target)}`);
  const shardArg = (values.shard as string | undefined) ?? null;
  let shard: Options["shard"] = null;
  if (shardArg !== null) {
    const m = /^(\d+)\/(\d+)$/.exec(shardArg);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new OptionError(`--shard must be I/N with 1 <= I <= N, got ${shardArg}`);
    shard = { index: Number(m[1]), count: Number(m[2]) };
  }
  const reporters: Reporter[] = [];
  for (const r of (values.reporter as string[] | undefined) ?? []) {
    const [name, file] = r.split("=", 2) as [string, string | undefined];
    if (!REPORTERS.includes(name as Reporter["name"]))
      throw new OptionError(`--reporter must be one of ${REPORTERS.join(", ")}, got ${JSON.stringify(name)}`);
    const needsFile = name === "junit" || name === "json" || name === "html";
    if (file && !needsFile)
      throw new OptionError(`--reporter ${name} writes to the terminal and takes no file`);
    // A report path is the user's, relative to where they run the kit (not to the package).
    const path = needsFile
      ? resolve(userDir(), file ?? `reports/conformance-${name}.${name === "junit" ? "xml" : name}`)
      : undefined;
    reporters.push({ name: name as Reporter["name"], ...(path ? { file: path } : {}) });
  }
  // The shorthands add a file to whatever the terminal shows (the default report unless one was chosen).
  const files = (["junit", "json"] as const).filter((name) => typeof values[name] === "string");
  if (files.length && !reporters.some((r) => !r.file)) reporters.push({ name: "default" });
  for (const name of files) reporters.push({ name, file: resolve(userDir(), values[name] as string) });
  const replay = values.replay ? readReplay(resolve(userDir(), values.replay as string)) : null;
  return {
    target,
    config: config ? resolve(userDir(), config) : null,
    seed:
      integer("seed", values.seed as string | undefined, 0) ??
      replay?.seed ??
      Math.floor(Math.random() * 2 ** 31),
    runs: integer("runs", values.runs as string | undefined, 1),
    readOnly: Boolean(values["read-only"]),
    deep: Boolean(values.deep),
    budget: { requests: integer("budget", values.budget as string | undefined, 1), ms: timeBudget(values) },
    noReset: Boolean(values["no-reset"]),
    strict: Boolean(values.strict),
    relaxWording: Boolean(values["relax-wording"]),
    scenario: scenarioOf(values.scenario as string | undefined),
    controlToken: (values["control-token"] as string | undefined) ?? null,
    sandbox: (values.sandbox as string | undefined) ?? null,
    reporters: reporters.length ? reporters : [{ name: "default" }],
    shard,
    // A replay runs the one check that saved the sequence.
    testPattern: replay
      ? `${replay.check.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}:`
      : pattern("-t/--only", (values.only as string | undefined) ?? (values.test as string | undefined)),
    skipPattern: pattern("--skip", values.skip as string | undefined),
    replay: replay?.file ?? null,
    contract: (values.contract as string | undefined) ?? null,
  };
}

/** A check-name pattern as given, once it is known to be a regular expression. */
function pattern(name: string, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  try {
    new RegExp(raw);
  } catch (e) {
    throw new OptionError(`${name} must be a regular expression: ${(e as Error).message}`);
  }
  return raw;
}

/** `--time-budget`: a duration (`60s`, `5m`), or null when not given. */
function timeBudget(values: Record<string, unknown>): number | null {
  const raw = values["time-budget"] as string | undefined;
  if (raw === undefined) return null;
  // `500ms`, `90s`, `5m`, `1h`; a bare number is seconds.
  const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/.exec(raw);
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  const ms = m ? Number(m[1]) * (unit[m[2] ?? "s"] as number) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 1)
    throw new OptionError(
      `--time-budget must be a duration such as 60s, 5m or 1h, got ${JSON.stringify(raw)}`,
    );
  return ms;
}

/** `--scenario`: a built-in scenario's name as it is, a `.json` file (or a path) read as a scenario document. */
function scenarioOf(raw: string | undefined): string | object | null {
  if (raw === undefined) return null;
  if (!/[\\/]|\.json$/i.test(raw)) return raw;
  try {
    return JSON.parse(readFileSync(resolve(userDir(), raw), "utf8")) as object;
  } catch (e) {
    throw new OptionError(`--scenario ${raw}: ${(e as Error).message}`);
  }
}

/** A sequence file saved by a failing model run: which check, which seed, which steps. */
function readReplay(file: string): { file: string; check: string; seed: number | null } {
  let parsed: { check?: unknown; seed?: unknown; steps?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new OptionError(`--replay ${file}: ${(e as Error).message}`);
  }
  if (typeof parsed.check !== "string" || !Array.isArray(parsed.steps))
    throw new OptionError(`--replay ${file}: not a saved sequence (no check name or steps)`);
  return { file, check: parsed.check, seed: typeof parsed.seed === "number" ? parsed.seed : null };
}

/** Reaches the target before vitest starts, so a wrong URL or file is exit 2, not a wall of failures. */
async function preflight(o: Options): Promise<string> {
  if (o.config) {
    const c = loadConfig(o.config);
    const base = (o.target ?? c.baseUrl).replace(/\/$/, "");
    await probeDeployment(base, c.prefix ?? "/api/v1");
    return `${base} (deployment, ${o.config})`;
  }
  const base = (o.target as string).replace(/\/$/, "");
  // A new sandbox is made from the default world's control plane; an existing one answers on its own.
  const sandbox = o.sandbox && o.sandbox !== "new" ? o.sandbox : null;
  const manifest = await probeSimulator(controlBaseOf(base, sandbox), o.controlToken);
  if (!manifest && sandbox)
    throw new ConfigError(`${base} has no sandbox ${sandbox} that this --control-token opens`);
  if (!manifest) {
    throw new ConfigError(
      `${base} answers, but not GET /__sim/manifest: for a real deployment, describe it in a config file (--config FILE; see conformance/example.config.json)`,
    );
  }
  const where = o.sandbox === "new" ? ", a new sandbox" : sandbox ? `, sandbox ${sandbox}` : "";
  return `${base} (simulator${where}${o.noReset ? ", not reset" : ""})`;
}

/** Joins shard coverage reports into one; a file that is not a coverage report is exit 2. */
async function mergeReports(files: string[]): Promise<number> {
  const [{ formatCoverage, joinCoverage }, { sentenceIndexWith }, { allChecks }] = await Promise.all([
    import("./lib/reporting/coverage.ts"),
    import("./index/index.ts"),
    import("./checks/index.ts"),
  ]);
  const reports: CoverageReport[] = [];
  for (const file of files) {
    try {
      const r = JSON.parse(readFileSync(file, "utf8")) as CoverageReport;
      if (!r.statuses?.byOperation || !r.limits?.missing)
        throw new Error("not a conformance coverage report");
      reports.push(r);
    } catch (e) {
      process.stderr.write(`conformance: --merge-coverage ${file}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const joined = joinCoverage(reports, sentenceIndexWith(allChecks));
  mkdirSync(reportsDir(), { recursive: true });
  const out = join(reportsDir(), "conformance-coverage.json");
  writeFileSync(out, `${JSON.stringify({ mergedFrom: files, ...joined }, null, 2)}\n`);
  process.stdout.write(`${formatCoverage(joined)}\n  merged ${files.length} report(s) into ${out}\n`);
  return 0;
}

async function main(): Promise<number> {
  if (process.argv[2] === "init") return (await import("./init.ts")).init(process.argv.slice(3));
  let o: Options | "help" | { merge: string[] };
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof OptionError)) throw e;
    process.stderr.write(`conformance: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (o === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if ("merge" in o) return mergeReports(o.merge);
  let contract: Contract = ownContract;
  if (o.contract) {
    try {
      contract = createContract(await loadContract(o.contract));
    } catch (e) {
      process.stderr.write(`conformance: --contract ${o.contract}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const options = o;
  // Everything the run does reads this contract (lib/description/contract.ts): it is handed in here.
  return withContract(contract, () => checkTarget(options));
}

/** The run itself: the target reached, the checks chosen and run against it. */
async function checkTarget(o: Options): Promise<number> {
  let where: string;
  try {
    where = await preflight(o);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof UnreachableError) {
      process.stderr.write(`conformance: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  process.stdout.write(
    `conformance: target ${where}; seed ${o.seed}${o.runs ? `; runs ${o.runs}` : ""}${o.readOnly ? "; read-only" : ""}${o.deep ? "; deep" : ""}${o.replay ? `; replaying ${o.replay}` : ""}\n`,
  );
  // The world model reads a replayed sequence from here (checks/world.ts).
  if (o.replay) process.env.CONFORMANCE_REPLAY = o.replay;
  let info: TargetInfo;
  try {
    info = await discover({ ...o, runId: `${process.pid}-${Date.now()}` });
  } catch (e) {
    if (e instanceof ConfigError || e instanceof UnreachableError) {
      process.stderr.write(`conformance: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  // The checks load only when a run starts: usage errors, --help and --merge-coverage answer at once.
  const [{ runChecks, chooseChecks, lackingNeeds }, { allChecks }, { sentenceIndexWith }] = await Promise.all(
    [import("./lib/running/runner.ts"), import("./checks/index.ts"), import("./index/index.ts")],
  );
  const selection = {
    checks: allChecks,
    sentences: sentenceIndexWith(allChecks),
    pattern: o.testPattern ? new RegExp(o.testPattern) : null,
    skip: o.skipPattern ? new RegExp(o.skipPattern) : null,
    shard: o.shard,
  };
  // A world or config without what the checks need would have them skipped and the run go green on what
  // little is left: refused before anything runs, naming what is missing and who needs it.
  const chosen = chooseChecks(selection);
  const lacking = lackingNeeds(chosen, info);
  if (lacking.size > 0) {
    process.stderr.write(refusal(lacking, chosen.length, info.kind === "simulator"));
    return 2;
  }
  // The budget is the whole command's: counted from the process's start, so the run exits within it.
  const budget = { ...o.budget, ms: o.budget.ms ?? defaultTimeBudget(info), since: performance.timeOrigin };
  process.stdout.write(
    `conformance: time budget ${seconds(budget.ms)}${o.budget.ms == null ? " (the default; --time-budget sets another)" : ""}\n`,
  );
  const summary = await runChecks(info, {
    ...selection,
    reporters: o.reporters,
    budget,
    strict: o.strict,
  });
  return summary.exitCode;
}

/**
 * A run's time budget when none is given: what a team waits for in CI on a deployment (a quick run, one
 * rate-limit window per account, is over in well under a minute), longer for --deep (many windows), and
 * generous on a simulator, whose clock the kit moves.
 */
function defaultTimeBudget(info: TargetInfo): number {
  if (info.kind === "simulator") return 10 * 60_000;
  return info.quick ? 60_000 : 30 * 60_000;
}

const seconds = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);

/** The missing handles or fields, each with the checks that need it, and how to run without them. */
function refusal(lacking: Map<string, string[]>, chosen: number, simulator: boolean): string {
  const needing = new Set([...lacking.values()].flat());
  const what = simulator
    ? `the simulator's world lacks handles that ${needing.size} of the ${chosen} chosen checks need (a scenario document that "extends": "default" keeps the default scenario's handles)`
    : `the config lacks fields that ${needing.size} of the ${chosen} chosen checks need (see conformance/example.config.json)`;
  const lines = [...lacking].map(([need, checks]) => {
    const shown = checks.slice(0, 4).join(", ");
    return `  ${need}: needed by ${shown}${checks.length > 4 ? ` and ${checks.length - 4} more` : ""}`;
  });
  const skip = [...needing].map((n) => n.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  return `conformance: ${what}; nothing was run:\n${lines.join("\n")}\nTo run the others, leave these out: --skip '^(${skip}):'\n`;
}

// The package's `proxy` and `capture` commands run from this bundle too (bin/audience-research-sim.cjs
// names them so).
const command = process.argv[1];
const run =
  command === "audience-research-sim proxy"
    ? import("./proxy/cli.ts").then((m) => m.main())
    : command === "audience-research-sim capture"
      ? import("./proxy/capture.ts").then((m) => m.main())
      : main();
run.then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`conformance: ${(e as Error).stack ?? e}\n`);
    process.exit(2);
  },
);
