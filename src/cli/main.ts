/**
 * `npm start`: serves the simulator over HTTP on a real-time clock (by default the `default` scenario on
 * http://127.0.0.1:4010), prints where everything is and the scenario's API keys, logs one line per
 * request, and shuts down cleanly on SIGINT/SIGTERM. With `--state-file PATH` the world is loaded from PATH
 * when it exists, every change is on disk (an fsync'd log beside it) before its reply leaves, and on
 * SIGINT/SIGTERM the world is written as a fresh snapshot. Exit codes: 0 stopped by a signal, 1 could not start (port taken, scenario failed to build, state file not writable), 2 bad
 * usage (including a state file that is corrupt or of an unknown version).
 */
import type { SimulatorOptions } from "../core/engine.ts";
import { parseSnapshot, type Snapshot } from "../core/persistence/snapshot.ts";
import type { SimConfig } from "../core/services.ts";
import type { Manifest } from "../core/world/manifest.ts";
import type { SandboxRecord, SandboxSpec } from "../core/world/sandboxes.ts";
import type { Scenario } from "../core/world/scenario.ts";
import type { RunningServer } from "../node/server.ts";
import { type CliOptions, parseCli, USAGE, UsageError } from "./args.ts";
import { codeCacheSaved, saveCodeCache } from "./code-cache.ts";
import { listenFirst, settleAfterStart } from "./listen.ts";
import { keepPrebuilt } from "./prebuilt.ts";
import { requestLogger } from "./request-log.ts";
import type { ChangeLog, Checkpointer, SavedState } from "./stores/change-log.ts";

const CONTROL_TOKEN_HEADER = "x-sim-control-token";

async function main(): Promise<void> {
  // A closed stdout (say `npm start | head`) must not take the server down with EPIPE.
  process.stdout.on("error", () => {});

  let options: CliOptions;
  try {
    const parsed = parseCli(process.argv.slice(2), process.env);
    if (parsed.kind === "help") {
      process.stdout.write(USAGE);
      return;
    }
    options = parsed.options;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\nRun with --help for the options.\n`);
    process.exit(2);
  }

  // Loaded only now, so that bad usage and --help answer without compiling the contract; what keeps a state
  // file (and node:zlib, for its checksums) only with --state-file.
  const [simulator, { startServer }, host, persistence] = await Promise.all([
    import("../simulator.ts"),
    import("../node/server.ts"),
    import("../node/host.ts"),
    options.stateFile === null ? null : loadPersistence(),
  ]);
  const { createSimulator, createSandboxes } = simulator;
  const stateFile = options.stateFile;
  // The change log compacts the default world when full: it is made before the world, and told of it here.
  const world: { sim?: Checkpointer } = {};
  const { saved, changeLog } = await openStateFile(options, persistence, world);
  // What the world starts from when no saved state says otherwise: a snapshot, or a scenario document.
  const start = await startingWorld(options, simulator);
  const front = await listenFirst(startServer, options, (error, where) => {
    if (isAbort(error)) return;
    process.stderr.write(`[server] ${where.method} ${where.path}: ${describe(error)}\n`);
  });
  const loaded = keepSavedClock(saved?.snapshot ?? start.snapshot, options);
  const log = options.log === null ? undefined : requestLogger(options.log);
  // Prism (Prefer: dynamic=true) is an optional peer: without it such requests get the contract's example and
  // say why in a header; the operator hears it once, after the banner.
  const generateBody = host.prismBodyGenerator();
  // A built-in scenario's world made when the package was built, if it was (src/cli/prebuilt.ts).
  if (loaded === null && typeof start.scenario === "string") keepPrebuilt(start.scenario, options.seed);
  // What the default world and every sandbox share.
  const shared = sharedOptions(options, start.scenario, log, generateBody);
  const sim = createSimulator({
    ...shared,
    ...(loaded ? { snapshot: loaded, snapshotIsOwn: saved?.snapshot != null } : {}),
    ...(changeLog ? { changes: changeLog } : {}),
  });
  world.sim = sim;

  try {
    await sim.ready;
  } catch (error) {
    buildFailed(error, options, loaded !== null, saved?.snapshot != null, simulator);
  }
  // After a clean stop the snapshot holds everything (it is written on the way out) and there is nothing
  // to fold: writing the same 7 MB again held up the first answer (about 50 ms, measured from outside).
  if (
    changeLog &&
    saved &&
    (saved.snapshot === null || saved.changes.length > 0 || saved.notices.length > 0)
  ) {
    // The changes made since the snapshot, made again; then a fresh snapshot and an empty log, so a
    // restart finds the same world even before the first change (and a torn record stays behind no log).
    await sim.replay(saved.changes);
    try {
      await changeLog.compact(sim);
    } catch (error) {
      process.stderr.write(`error: cannot write state file ${stateFile}: ${describeShort(error)}\n`);
      process.exit(1);
    }
  }
  if (loaded) {
    // Flags given explicitly win over the saved configuration.
    if (options.given.includes("rate-limit")) sim.config.rateLimitPerMinute = options.rateLimitPerMinute;
    if (options.given.includes("latency")) sim.config.latencyMs = options.latencyMs;
  }

  // Sandboxes, each saved beside the state file as the default world is (src/cli/stores/sandbox-store.ts).
  const store =
    stateFile === null || persistence === null
      ? null
      : new persistence.sandboxStores.SandboxStore(stateFile, {
          onFatal: (error) => {
            process.stderr.write(`error: cannot write a sandbox's change log: ${describeShort(error)}\n`);
            process.exit(1);
          },
          onCompactError: (error) =>
            process.stderr.write(
              `[state-file] could not write a sandbox snapshot: ${describeShort(error)}\n`,
            ),
        });
  const sandboxes = createSandboxes(
    {
      ...shared,
      maxSandboxes: options.maxSandboxes,
      idleTtlMs: options.sandboxTtlMs,
      instance: options.instance,
      ...(store
        ? {
            sandbox: (spec: SandboxSpec) => ({ changes: store.logFor(spec.id) }),
            onCreated: (record: SandboxRecord, engine: Checkpointer) => store.created(record, engine),
            onDeleted: (id: string) => store.deleted(id),
          }
        : {}),
    },
    sim,
  );
  if (store && persistence)
    await adoptSavedSandboxes(store, sandboxes, shared, stateFile as string, simulator, persistence);
  // Idle sandboxes go even when no request comes to notice them.
  if (options.sandboxTtlMs !== null)
    setInterval(() => void sandboxes.sweep(), Math.max(100, Math.min(10_000, options.sandboxTtlMs))).unref();

  // A page anyone can open shows keys only when anyone may read them from the control plane too.
  const showKeys = options.control && options.controlToken === null;
  front.serve(host.nodeHandler(sandboxes, { corsOrigins: options.corsOrigins, showKeys }));
  const server = front.running;

  settleAfterStart(server);
  const fromState = saved?.snapshot != null;
  process.stdout.write(banner(server, options, sim.manifest(), sim.config, fromState, sandboxes.size));
  // Once a request waiting for the world has been answered: finding Prism out resolves a module.
  setImmediate(() => {
    if (generateBody.unavailable)
      process.stderr.write(`note: Prefer: dynamic=true: ${generateBody.unavailable}\n`);
  });
  const unwatch =
    options.watch && options.scenarioFile !== null
      ? (await import("./watch.ts")).watchScenarioFile(options.scenarioFile, {
          reset: (to) => sim.reset(to),
          say: (line) => process.stdout.write(`${line}\n`),
          warn: (line) => process.stderr.write(`${line}\n`),
          problems: (error) => (error instanceof simulator.ScenarioError ? problemLines(error) : null),
          seed: options.seed,
        })
      : null;

  stopOnSignals(server, sim, changeLog, store, unwatch);
}

/**
 * A saved world keeps the clock it was saved on (a manual one stays manual, with its time and jobs), and so
 * does every reset of it; `--clock` given explicitly wins, with a notice. Changes `options.clock` to match.
 */
function keepSavedClock(snapshot: Snapshot | null, options: CliOptions): Snapshot | null {
  const savedMode = snapshot?.clock.mode;
  if (!snapshot || savedMode === undefined || savedMode === options.clock) return snapshot;
  if (!options.given.includes("clock")) {
    options.clock = savedMode;
    return snapshot;
  }
  process.stderr.write(
    `notice: the saved world ran on a ${savedMode} clock; --clock ${options.clock} given, so it runs on a ${options.clock} one\n`,
  );
  return { ...snapshot, clock: { ...snapshot.clock, mode: options.clock } };
}

/**
 * The world `--scenario FILE` or `--from-snapshot FILE` names, read and checked before anything listens:
 * every problem is printed with its JSON path, and the process exits 2.
 */
async function startingWorld(
  options: CliOptions,
  simulator: typeof import("../simulator.ts"),
): Promise<{ scenario: string | Scenario; snapshot: Snapshot | null }> {
  const file = options.snapshotFile ?? options.scenarioFile;
  if (file === null) return { scenario: options.scenario, snapshot: null };
  const fail = (message: string): never => {
    process.stderr.write(`error: ${file}: ${message}\n`);
    process.exit(2);
  };
  let text = "";
  try {
    // Loaded only here: node:fs/promises brings readline and the file watchers with it.
    const { readFile } = await import("node:fs/promises");
    text = await readFile(file, "utf8");
  } catch (error) {
    fail(`cannot be read (${describeShort(error)})`);
  }
  if (options.snapshotFile !== null) {
    try {
      return { scenario: options.scenario, snapshot: parseSnapshot(text) };
    } catch (error) {
      return fail(`is not a snapshot the simulator can load: ${describeShort(error)}`);
    }
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    fail(`is not JSON (${describeShort(error)})`);
  }
  try {
    return { scenario: simulator.loadScenario(document), snapshot: null };
  } catch (error) {
    if (!(error instanceof simulator.ScenarioError)) throw error;
    const n = error.problems.length;
    return fail(`is not a valid scenario (${n} problem${n === 1 ? "" : "s"}):\n${problemLines(error)}`);
  }
}

/** A scenario's problems as the terminal shows them: one a line, its JSON path first. */
function problemLines(error: { problems: readonly { path: string; message: string }[] }): string {
  return error.problems.map((p) => `  ${p.path || "/"}: ${p.message}`).join("\n");
}

function banner(
  server: RunningServer,
  options: CliOptions,
  manifest: Manifest,
  config: SimConfig,
  loaded: boolean,
  sandboxCount: number,
): string {
  const origin = displayOrigin(options.host, server.port);
  const lines: string[] = [];
  const row = (label: string, value: string): void => {
    lines.push(`  ${label.padEnd(12)} ${value}`);
  };
  lines.push(`Audience Research Service API simulator listening on ${server.url}`, "");
  row("API", `${origin}/api/v1`);
  row("", `${origin}/v1`);
  row("ACP", `${origin}/api/acp`);
  row("OpenAPI", `${origin}/_openapi.json`);
  row("Docs", `${origin}/  (API reference with "try it")`);
  row("CORS", options.corsOrigins.join(", "));
  if (options.control) {
    const token =
      options.controlToken === null ? "" : `  (header ${CONTROL_TOKEN_HEADER}: ${options.controlToken})`;
    row("Control", `${origin}/__sim/manifest${token}`);
    const ttl = options.sandboxTtlMs === null ? "" : `, removed after ${options.sandboxTtlMs / 1000} s idle`;
    const kept = sandboxCount > 0 ? `; ${sandboxCount} brought back from the state file` : "";
    row("Sandboxes", `POST ${origin}/__sim/sandboxes (at most ${options.maxSandboxes}${ttl}${kept})`);
  } else {
    row("Control", "off (--no-control)");
  }
  lines.push("");
  row("Scenario", `${manifest.scenario} (seed ${manifest.seed})`);
  row(
    "Clock",
    options.clock === "real"
      ? `real: background jobs finish after a few real seconds (virtual time now ${manifest.now})`
      : `manual at ${manifest.now}: time moves only through POST /__sim/clock/advance`,
  );
  row("Rate limit", `${config.rateLimitPerMinute} requests per minute per account`);
  const l = config.latencyMs;
  row("Latency", Array.isArray(l) ? `${l[0]}-${l[1]} ms` : l > 0 ? `${l} ms` : "none");
  row("Request log", options.log ?? "off (--quiet)");
  if (options.stateFile !== null) row("State file", `${options.stateFile} (${loaded ? "loaded" : "new"})`);

  const users = Object.entries(manifest.users);
  lines.push("", "  Users");
  const hw = Math.max(6, ...users.map(([h]) => h.length));
  const pw = Math.max(4, ...users.map(([, u]) => u.plan.length));
  lines.push(`    ${"handle".padEnd(hw)}  ${"plan".padEnd(pw)}  ${"subscription".padEnd(12)}  API key`);
  for (const [handle, u] of users) {
    const sub = u.subscriptionActive ? "active" : "none";
    lines.push(`    ${handle.padEnd(hw)}  ${u.plan.padEnd(pw)}  ${sub.padEnd(12)}  ${u.apiKey}`);
  }

  const [exampleHandle, example] = users.find(([h]) => h === "owner") ?? users[0] ?? [];
  if (exampleHandle !== undefined && example !== undefined) {
    lines.push("", `  Try it (as ${exampleHandle}):`);
    lines.push(`    curl -H "Authorization: Bearer ${example.apiKey}" ${origin}/api/v1/auth/me`);
  }
  if (options.clock === "manual") {
    if (options.control) {
      const token =
        options.controlToken === null ? "" : ` -H "${CONTROL_TOKEN_HEADER}: ${options.controlToken}"`;
      lines.push("  Move the clock one minute:");
      lines.push(
        `    curl -X POST${token} -H "Content-Type: application/json" -d '{"ms":60000}' ${origin}/__sim/clock/advance`,
      );
    } else {
      lines.push("  Note: with a manual clock and no control plane, simulated time never moves.");
    }
  }
  lines.push("", "Press Ctrl+C to stop.", "");
  return `${lines.join("\n")}\n`;
}

/** Where a client on this machine reaches the server: a wildcard address is shown as loopback. */
function displayOrigin(host: string, port: number): string {
  if (host === "0.0.0.0") return `http://127.0.0.1:${port}`;
  if (host === "::" || host === "[::]") return `http://[::1]:${port}`;
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

function describeShort(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

// Not awaited at the top level: the bundle is a script (scripts/build.ts). A failure still ends the process.
void main();

type SimulatorModule = typeof import("../simulator.ts");

/** The modules that keep a state file, loaded only with --state-file. */
async function loadPersistence() {
  const [stateFiles, changeLogs, sandboxStores] = await Promise.all([
    import("./stores/state-file.ts"),
    import("./stores/change-log.ts"),
    import("./stores/sandbox-store.ts"),
  ]);
  return { stateFiles, changeLogs, sandboxStores };
}
type Persistence = Awaited<ReturnType<typeof loadPersistence>>;

/**
 * `--state-file`: what it saved (notices printed; stale temporaries removed) and the change log every
 * change goes to before its reply; null for both without the flag. Exits 2 on a file it cannot read.
 */
async function openStateFile(
  options: CliOptions,
  persistence: Persistence | null,
  world: { sim?: Checkpointer },
): Promise<{ saved: SavedState | null; changeLog: ChangeLog | null }> {
  const stateFile = options.stateFile;
  if (stateFile === null || persistence === null) return { saved: null, changeLog: null };
  const { changeLogs, stateFiles } = persistence;
  let saved: SavedState;
  try {
    saved = await changeLogs.readSavedState(stateFile);
  } catch (error) {
    process.stderr.write(`error: ${describeShort(error)}\n`);
    process.exit(2);
  }
  for (const notice of saved.notices) process.stderr.write(`notice: ${notice}\n`);
  await stateFiles.removeStaleTemporaries(stateFile);
  const ignored = options.given.filter((f) => f === "scenario" || f === "seed");
  if (saved.snapshot && ignored.length > 0) {
    const flags = ignored.map((f) => `--${f}`).join(" and ");
    process.stderr.write(`notice: loading the saved state from ${stateFile}; ${flags} ignored\n`);
  }
  const changeLog: ChangeLog = new changeLogs.ChangeLog(stateFile, saved.generation, {
    onFatal: (error) => {
      // Nothing after this could be made durable: stop rather than acknowledge changes that are not saved.
      process.stderr.write(`error: cannot write the change log of ${stateFile}: ${describeShort(error)}\n`);
      process.exit(1);
    },
    onFull: () => {
      if (!world.sim) return;
      changeLog.compact(world.sim).catch((error: unknown) => {
        process.stderr.write(`[state-file] could not write a snapshot: ${describeShort(error)}\n`);
      });
    },
  });
  return { saved, changeLog };
}

/** The default world could not be made: why, with every problem, and the exit code that says whose. */
function buildFailed(
  error: unknown,
  options: CliOptions,
  fromSnapshot: boolean,
  fromStateFile: boolean,
  simulator: SimulatorModule,
): never {
  if (fromSnapshot) {
    const from = fromStateFile ? `state file ${options.stateFile}` : options.snapshotFile;
    const every = error instanceof simulator.SnapshotError && error.problems.length > 0;
    process.stderr.write(
      `error: ${from}: ${describeShort(error)}\n${every ? `${problemLines(error)}\n` : ""}`,
    );
    process.exit(2);
  }
  const name = options.scenarioFile ?? options.scenario;
  // A document may build at its own seed and not at another, or a step of its setup may be refused.
  if (error instanceof simulator.ScenarioError) {
    process.stderr.write(
      `error: scenario ${name} cannot be made at seed ${options.seed ?? "its own"}:\n${problemLines(error)}\n`,
    );
    process.exit(2);
  }
  process.stderr.write(`error: scenario "${name}" failed to build: ${describe(error)}\n`);
  process.exit(1);
}

/** The sandboxes saved beside the state file, each restored on its first request. Exits 2 on a bad registry. */
async function adoptSavedSandboxes(
  store: InstanceType<Persistence["sandboxStores"]["SandboxStore"]>,
  sandboxes: ReturnType<SimulatorModule["createSandboxes"]>,
  shared: SimulatorOptions,
  stateFile: string,
  { createSandboxEngine, sandboxSpec }: SimulatorModule,
  { sandboxStores: { restoredWhenUsed } }: Persistence,
): Promise<void> {
  try {
    for (const record of await store.load()) {
      // Each is restored on its first request: a thousand saved sandboxes do not hold up the first answer.
      const restore = async () => {
        const saved = await store.saved(record.id);
        for (const notice of saved.notices) process.stderr.write(`notice: sandbox ${record.id}: ${notice}\n`);
        const log = store.logFor(record.id, saved.generation);
        const engine = createSandboxEngine(shared, sandboxSpec(record), {
          ...(saved.snapshot ? { snapshot: saved.snapshot } : {}),
          changes: log,
        });
        await engine.ready;
        await engine.replay(saved.changes);
        store.attach(record.id, engine);
        // A torn last record must not stay behind the generation the log continues in.
        if (saved.notices.length > 0) await log.compact(engine);
        return engine;
      };
      const reported = () =>
        restore().catch((error: unknown) => {
          process.stderr.write(`error: sandbox ${record.id} of ${stateFile}: ${describeShort(error)}\n`);
          throw error;
        });
      sandboxes.adopt({ ...record, lastUsedAt: Date.now() }, restoredWhenUsed(reported));
    }
  } catch (error) {
    process.stderr.write(`error: sandboxes of ${stateFile}: ${describeShort(error)}\n`);
    process.exit(2);
  }
}

/** What the default world and every sandbox are made with, from the command line. */
function sharedOptions(
  options: CliOptions,
  scenario: string | Scenario,
  log: SimulatorOptions["onRequest"],
  generateBody: NonNullable<SimulatorOptions["generateBody"]>,
): SimulatorOptions {
  return {
    scenario,
    ...(options.seed !== null ? { seed: options.seed } : {}),
    clock: options.clock,
    wallClock: Date.now,
    sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    control: options.control,
    controlToken: options.controlToken,
    rateLimitPerMinute: options.rateLimitPerMinute,
    latencyMs: options.latencyMs,
    generateBody,
    ...(log ? { onRequest: log } : {}),
    onError: (error, where) => {
      // A client that hung up mid-request is not a bug of the simulator.
      if (isAbort(error)) return;
      process.stderr.write(`[bug] ${where.method} ${where.path} was answered 500: ${describe(error)}\n`);
    },
  };
}

/**
 * SIGINT and SIGTERM: stop listening, write the world (and the sandboxes) to the state file, exit 0; a
 * second signal exits at once.
 */
function stopOnSignals(
  server: RunningServer,
  sim: Checkpointer,
  changeLog: ChangeLog | null,
  store: { close(): Promise<void> } | null,
  unwatch: (() => void) | null,
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting without waiting for open connections\n`);
      process.exit(1);
    }
    stopping = true;
    // Stopped within a quarter second of listening (a script, a test): the next start still finds the code.
    if (!codeCacheSaved()) saveCodeCache();
    unwatch?.();
    process.stderr.write(`${signal}: shutting down\n`);
    server
      .close()
      .then(() => changeLog?.compact(sim))
      .then(() => changeLog?.close())
      .then(() => store?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`error while closing: ${describe(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
