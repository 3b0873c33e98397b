/**
 * `npm run conformance -- --target URL [options]`: checks its arguments, reaches the target, then runs the
 * conformance vitest project against it. Exit 0: every check held; 1: at least one violation; 2: bad
 * usage, bad config, or target unreachable.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type CoverageReport, formatCoverage, joinCoverage } from "./lib/coverage.ts";
import { reportsDir } from "./lib/paths.ts";
import {
  ConfigError,
  loadConfig,
  probeDeployment,
  probeSimulator,
  type RunSettings,
  UnreachableError,
} from "./lib/target.ts";

const USAGE = `Usage: npm run conformance -- --target URL [options]
       npm run conformance -- --config FILE [options]
       npm run conformance -- --merge-coverage FILE --merge-coverage FILE ...

Runs the conformance suite against a simulator (discovered through GET /__sim/manifest and reset first)
or, with --config, against a real deployment described by the file (see conformance/example.config.json).

Options:
  --target URL           base URL of the target (with --config: overrides its baseUrl)
  --config FILE          deployment config: base URL, API keys by role, readable and changeable IDs
  --seed N               fast-check seed (default: random, printed); the same seed replays a run
  --runs N               numRuns of every property (default: each property's own, tuned for < 60 s)
  --read-only            skip every check that changes state (they are reported as skipped)
  --no-reset             do not reset the simulator first
  --control-token T      the simulator's x-sim-control-token
  --reporter NAME[=FILE] vitest reporter (default, verbose, dot, junit, json, ...); repeatable;
                         NAME=FILE writes that reporter to FILE (e.g. junit=reports/junit.xml)
  --shard I/N            run only shard I of N (vitest sharding, for CI)
  -t, --test PATTERN     run only checks whose name matches PATTERN (e.g. "generic/auth")
  --replay FILE          re-run one saved failing sequence (reports/sequence-*.json) against the target
  --merge-coverage FILE  join the coverage reports of shard runs (repeat it, one per report) into
                         reports/conformance-coverage.json and print the summary; needs no target
  -h, --help             this text

Exit status: 0 every check held; 1 at least one violation; 2 bad usage, bad config or target unreachable.
Reports: reports/conformance-violations.json and reports/conformance-coverage.json.
`;

class UsageError extends Error {}

/** What the run itself takes (lib/target.ts), less the run ID made per run, plus how vitest reports it. */
interface Options extends Omit<RunSettings, "runId"> {
  reporters: string[];
  outputFile: Record<string, string>;
  shard: string | null;
  testPattern: string | null;
  replay: string | null;
}

function integer(name: string, raw: string | undefined, min: number): number | null {
  if (raw === undefined) return null;
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw)))
    throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function parse(argv: string[]): Options | "help" | { merge: string[] } {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        target: { type: "string" },
        config: { type: "string" },
        seed: { type: "string" },
        runs: { type: "string" },
        "read-only": { type: "boolean" },
        "no-reset": { type: "boolean" },
        "control-token": { type: "string" },
        reporter: { type: "string", multiple: true },
        shard: { type: "string" },
        test: { type: "string", short: "t" },
        replay: { type: "string" },
        "merge-coverage": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return "help";
  const merge = values["merge-coverage"] as string[] | undefined;
  if (merge?.length) return { merge: merge.map((f) => resolve(userDir(), f)) };
  const target = (values.target as string | undefined) ?? null;
  const config = (values.config as string | undefined) ?? null;
  if (!target && !config)
    throw new UsageError("give --target URL (a simulator) or --config FILE (a deployment)");
  if (target && !/^https?:\/\/[^/\s]+/.test(target))
    throw new UsageError(`--target must be an http(s) URL, got ${JSON.stringify(target)}`);
  const shard = (values.shard as string | undefined) ?? null;
  if (shard !== null) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new UsageError(`--shard must be I/N with 1 <= I <= N, got ${shard}`);
  }
  const reporters: string[] = [];
  const outputFile: Record<string, string> = {};
  for (const r of (values.reporter as string[] | undefined) ?? []) {
    const [name, file] = r.split("=", 2) as [string, string | undefined];
    if (!name) throw new UsageError(`--reporter needs a name, got ${JSON.stringify(r)}`);
    reporters.push(name);
    // A report path is the user's, relative to where they run the kit (not to the package).
    if (file) outputFile[name] = resolve(userDir(), file);
  }
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
    noReset: Boolean(values["no-reset"]),
    controlToken: (values["control-token"] as string | undefined) ?? null,
    reporters: reporters.length ? reporters : ["default"],
    outputFile,
    shard,
    // A replay runs the one check that saved the sequence.
    testPattern: replay
      ? `${replay.check.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}:`
      : ((values.test as string | undefined) ?? null),
    replay: replay?.file ?? null,
  };
}

/** Where the user ran the kit from: `npm run` moves into the package, and says where it came from. */
function userDir(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

/** A sequence file saved by a failing model run: which check, which seed, which steps. */
function readReplay(file: string): { file: string; check: string; seed: number | null } {
  let parsed: { check?: unknown; seed?: unknown; steps?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(`--replay ${file}: ${(e as Error).message}`);
  }
  if (typeof parsed.check !== "string" || !Array.isArray(parsed.steps))
    throw new UsageError(`--replay ${file}: not a saved sequence (no check name or steps)`);
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
  const manifest = await probeSimulator(base, o.controlToken);
  if (!manifest) {
    throw new ConfigError(
      `${base} answers, but not GET /__sim/manifest: for a real deployment, describe it in a config file (--config FILE; see conformance/example.config.json)`,
    );
  }
  return `${base} (simulator${o.noReset ? ", not reset" : ""})`;
}

/** Joins shard coverage reports into one; a file that is not a coverage report is exit 2. */
function mergeReports(files: string[]): number {
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
  const joined = joinCoverage(reports);
  mkdirSync(reportsDir(), { recursive: true });
  const out = join(reportsDir(), "conformance-coverage.json");
  writeFileSync(out, `${JSON.stringify({ mergedFrom: files, ...joined }, null, 2)}\n`);
  process.stdout.write(`${formatCoverage(joined)}\n  merged ${files.length} report(s) into ${out}\n`);
  return 0;
}

async function main(): Promise<number> {
  let o: Options | "help" | { merge: string[] };
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`conformance: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (o === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if ("merge" in o) return mergeReports(o.merge);
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
    `conformance: target ${where}; seed ${o.seed}${o.runs ? `; runs ${o.runs}` : ""}${o.readOnly ? "; read-only" : ""}${o.replay ? `; replaying ${o.replay}` : ""}\n`,
  );
  Object.assign(process.env, {
    CONFORMANCE_TARGET: o.target ?? "",
    CONFORMANCE_CONFIG: o.config ?? "",
    CONFORMANCE_SEED: String(o.seed),
    CONFORMANCE_RUNS: o.runs === null ? "" : String(o.runs),
    CONFORMANCE_READ_ONLY: o.readOnly ? "1" : "",
    CONFORMANCE_NO_RESET: o.noReset ? "1" : "",
    CONFORMANCE_CONTROL_TOKEN: o.controlToken ?? "",
    CONFORMANCE_REPLAY: o.replay ?? "",
  });
  // Colour only on a terminal: CI logs get plain text unless FORCE_COLOR asks for it (NO_COLOR always wins).
  if (!process.stdout.isTTY && !process.env.FORCE_COLOR) process.env.NO_COLOR = "1";
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const { startVitest } = await import("vitest/node");
  const vitest = await startVitest("test", [], {
    root,
    config: join(root, ".config", "vitest.config.ts"),
    project: ["conformance"],
    run: true,
    watch: false,
    reporters: o.reporters,
    ...(Object.keys(o.outputFile).length ? { outputFile: o.outputFile } : {}),
    ...(o.shard ? { shard: o.shard } : {}),
    ...(o.testPattern ? { testNamePattern: o.testPattern } : {}),
  });
  await vitest?.close();
  return Number(process.exitCode ?? 0) !== 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`conformance: ${(e as Error).stack ?? e}\n`);
    process.exit(2);
  },
);
