/**
 * `--state-file PATH` for sandboxes: each one kept under the same rule as the default world (a change is
 * on disk before its reply leaves), and the list of them kept beside it.
 *
 * - `PATH.sandboxes.json`: the registry (ID, control token, scenario, seed, creation time), replaced
 *   atomically before a creation or a deletion is answered.
 * - `PATH.sandbox-<id>.log.<generation>`: that sandbox's change log (src/cli/stores/change-log.ts), fsync'd
 *   before each reply as the default world's is. A sandbox's world is its scenario and seed plus its
 *   changes, so no snapshot is written when it is made (a snapshot of the default scenario is about
 *   7 MB); `PATH.sandbox-<id>` appears only once its log is long enough to be compacted.
 *
 * A crash between a sandbox's first change and its entry in the registry cannot happen (the entry is
 * written before the creation is answered, and no change can come before that); files that no registry
 * names are removed at the next start all the same.
 */
import { readdir, readFile, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type Outcome, promised, type SimRequest } from "../../core/request/exchange.ts";
import { isSandboxId, type SandboxEngine, type SandboxRecord } from "../../core/world/sandboxes.ts";
import { ChangeLog, type Checkpointer, readSavedState, type SavedState } from "./change-log.ts";
import { StateFileError, writeFileAtomic } from "./state-file.ts";

const FORMAT = "audience-research-sim/sandboxes";

type Stored = Omit<SandboxRecord, "lastUsedAt">;

interface Open {
  log: ChangeLog;
  sim: Checkpointer | null;
}

export class SandboxStore {
  private readonly registry = new Map<string, Stored>();
  private readonly open = new Map<string, Open>();
  private writing: Promise<void> = Promise.resolve();

  private readonly stateFile: string;
  private readonly options: { onFatal: (error: unknown) => void; onCompactError: (error: unknown) => void };
  constructor(
    stateFile: string,
    options: { onFatal: (error: unknown) => void; onCompactError: (error: unknown) => void },
  ) {
    this.stateFile = stateFile;
    this.options = options;
  }

  get registryPath(): string {
    return `${this.stateFile}.sandboxes.json`;
  }

  pathOf(id: string): string {
    return `${this.stateFile}.sandbox-${id}`;
  }

  /**
   * The saved sandboxes, as listed; files of sandboxes the registry does not name are removed. Their
   * states are read when each is first used (`saved`).
   */
  async load(): Promise<Stored[]> {
    let text: string | null = null;
    try {
      text = await readFile(this.registryPath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        throw new StateFileError(`cannot read ${this.registryPath}: ${(error as Error).message}`);
    }
    const records = text === null ? [] : parseRegistry(text, this.registryPath);
    for (const r of records) this.registry.set(r.id, r);
    await this.removeUnlisted();
    return records;
  }

  /** A listed sandbox's saved state: its snapshot, if one was written, and the changes since. */
  saved(id: string): Promise<SavedState> {
    return readSavedState(this.pathOf(id), true);
  }

  /** The change log a sandbox's engine writes to; `generation` is the newest already on disk (0: none). */
  logFor(id: string, generation = 0): ChangeLog {
    const entry: Open = {
      sim: null,
      log: new ChangeLog(this.pathOf(id), generation, {
        onFatal: this.options.onFatal,
        onFull: () => {
          if (entry.sim) entry.log.compact(entry.sim).catch(this.options.onCompactError);
        },
      }),
    };
    this.open.set(id, entry);
    return entry.log;
  }

  /** The engine behind a log, once built: compaction needs its view of the world. */
  attach(id: string, sim: Checkpointer): void {
    const entry = this.open.get(id);
    if (entry) entry.sim = sim;
  }

  /** Lists a new sandbox: from here on a restart brings it back (its scenario, seed and log). */
  async created(record: SandboxRecord, sim: Checkpointer): Promise<void> {
    this.attach(record.id, sim);
    const { lastUsedAt: _, ...stored } = record;
    this.registry.set(record.id, stored);
    await this.writeRegistry();
  }

  /** Unlists a sandbox, then removes its files. */
  async deleted(id: string): Promise<void> {
    this.registry.delete(id);
    await this.writeRegistry();
    const entry = this.open.get(id);
    this.open.delete(id);
    await entry?.log.close().catch(() => {});
    await this.removeFilesOf(id);
  }

  /** On shutdown: every log flushed and closed (the logs are the sandboxes' state). */
  async close(): Promise<void> {
    for (const { log } of this.open.values()) await log.close();
  }

  /**
   * One write at a time, each of the registry as it is when the write starts: two creations at once must
   * not let the older list land last. A caller's change is in the map before it asks, so its write holds it.
   */
  private writeRegistry(): Promise<void> {
    const next = this.writing.then(() => {
      const sandboxes = [...this.registry.values()];
      return writeFileAtomic(this.registryPath, `${JSON.stringify({ format: FORMAT, sandboxes })}\n`);
    });
    this.writing = next.catch(() => {});
    return next;
  }

  private async removeFilesOf(id: string): Promise<void> {
    const own = basename(this.pathOf(id));
    const names = await readdir(dirname(this.stateFile)).catch(() => [] as string[]);
    for (const name of names)
      if (name === own || name.startsWith(`${own}.log.`))
        await unlink(join(dirname(this.stateFile), name)).catch(() => {});
  }

  private async removeUnlisted(): Promise<void> {
    const prefix = `${basename(this.stateFile)}.sandbox-`;
    const names = await readdir(dirname(this.stateFile)).catch(() => [] as string[]);
    const ids = new Set<string>();
    for (const name of names)
      if (name.startsWith(prefix)) ids.add(name.slice(prefix.length).replace(/\.log\.\d+$/, ""));
    for (const id of ids) if (!this.registry.has(id)) await this.removeFilesOf(id);
  }
}

/**
 * A sandbox whose engine is made only when it is first used: a restart with a thousand saved sandboxes
 * lists them all at once and restores each on its first request, instead of one after another before the
 * first answer. `manifest()` may be asked only once `ready` has settled.
 */
export function restoredWhenUsed(restore: () => Promise<SandboxEngine>): SandboxEngine {
  let engine: SandboxEngine | null = null;
  let restoring: Promise<SandboxEngine> | null = null;
  const made = (): Promise<SandboxEngine> => {
    restoring ??= restore().then((e) => {
      engine = e;
      return e;
    });
    return restoring;
  };
  const respond = (request: SimRequest): Outcome | Promise<Outcome> =>
    engine ? engine.respond(request) : made().then((e) => e.respond(request));
  return {
    get ready() {
      return made().then(() => {});
    },
    handle: (request) => promised(respond, request),
    respond,
    manifest: () => {
      if (!engine) throw new Error("a sandbox's manifest was asked for before it was restored");
      return engine.manifest();
    },
    checkpoint: (take) => made().then((e) => e.checkpoint(take)),
  };
}

function parseRegistry(text: string, path: string): Stored[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StateFileError(`${path} is not JSON`);
  }
  const v = value as { format?: unknown; sandboxes?: unknown };
  if (v?.format !== FORMAT || !Array.isArray(v.sandboxes))
    throw new StateFileError(`${path} is not a sandbox registry`);
  for (const s of v.sandboxes as Stored[]) {
    const ok =
      typeof s?.id === "string" &&
      isSandboxId(s.id) &&
      typeof s.controlToken === "string" &&
      typeof s.scenario === "string" &&
      Number.isSafeInteger(s.seed) &&
      Number.isFinite(s.createdAt);
    if (!ok) throw new StateFileError(`${path} holds a sandbox entry that cannot be read`);
  }
  return v.sandboxes as Stored[];
}
