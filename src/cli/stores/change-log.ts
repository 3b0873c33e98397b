/**
 * `--state-file PATH`: a snapshot at PATH and, beside it, a write-ahead log of every change since
 * (`PATH.log.<generation>`), so that a change is on disk before its reply leaves.
 *
 * A change (src/core/persistence/changes.ts) is appended to the log as one line and the log is fsync'd before the
 * simulator answers. Changes that arrive while an fsync is under way wait for the next one and share it
 * (group commit, as databases do), so many writers cost one fsync per round, not one each. From time to
 * time, and on shutdown, the world is written as a fresh snapshot and the log starts a new generation;
 * the old generations are deleted once the snapshot is durable. At start the snapshot is loaded and the
 * log replayed on it. A crash can leave the last record half written: it was never acknowledged, so it is
 * dropped with a notice. A bad record with good records after it is damage, and the start is refused.
 *
 * A line is `<crc32 as 8 hex digits> <JSON>`: a record that is there but damaged is told from a good one.
 * If the log cannot be written (disk full, I/O error), nothing that follows could be made durable either:
 * `onFatal` is told and the host stops, as PostgreSQL does on a failed fsync, rather than acknowledge
 * changes it has not saved.
 */
import { writeSync } from "node:fs";
import { type FileHandle, open, readdir, readFile, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { crc32 } from "node:zlib";
import type { Change, ChangeSink } from "../../core/persistence/changes.ts";
import { encodeSnapshot, type Snapshot } from "../../core/persistence/snapshot.ts";
import { readStateFile, StateFileError, syncDirectory, writeFileAtomic } from "./state-file.ts";

/**
 * After this many records, or this many bytes, of log the world is written as a snapshot again. The two
 * costs it weighs, measured on the default world (a 7 MB snapshot): a snapshot takes about 60 ms of the
 * main thread and as much again in garbage collection, which at every 5,000 changes was 8% of the rate of
 * durable writes; a restart after a crash replays the log, about 15 µs a change (0.3 s for 20,000).
 */
export const COMPACT_AFTER_RECORDS = 20_000;
export const COMPACT_AFTER_BYTES = 8 * 1024 * 1024;
const FIRST_ZERO_AHEAD = 16 * 1024;
const MAX_ZERO_AHEAD = 1024 * 1024;

export interface SavedState {
  snapshot: Snapshot | null;
  /** The changes to replay on the snapshot, in order. */
  changes: Change[];
  /**
   * The highest log generation found or named by the snapshot (0 when none): a log written from here on
   * continues after it.
   */
  generation: number;
  /** Things worth telling the operator, such as a torn last record that was dropped. */
  notices: string[];
}

const LOG_NAME = /^(.*)\.log\.(\d{1,15})$/;

function logPath(path: string, generation: number): string {
  return `${path}.log.${generation}`;
}

/** The generations of log beside `path`, oldest first. */
async function logGenerations(path: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return [];
  }
  const base = basename(path);
  const found: number[] = [];
  for (const name of names) {
    const m = LOG_NAME.exec(name);
    if (m && m[1] === base) found.push(Number(m[2]));
  }
  return found.sort((a, b) => a - b);
}

/**
 * Reads the snapshot and the log records that follow it. Damage that cannot be a torn tail is a
 * StateFileError. `baseKnown`: the world the log starts from is known without a snapshot (a sandbox's
 * scenario and seed), so a log alone is whole.
 */
export async function readSavedState(path: string, baseKnown = false): Promise<SavedState> {
  const snapshot = await readStateFile(path);
  const generations = await logGenerations(path);
  const from = snapshot?.log?.generation ?? 0;
  const live = generations.filter((g) => g >= from);
  if (snapshot === null && live.length > 0 && !baseKnown) {
    throw new StateFileError(
      `${logPath(path, live[0] as number)} is a change log without its snapshot ${path}; remove the log files to start afresh`,
    );
  }
  const changes: Change[] = [];
  const notices: string[] = [];
  for (const [i, generation] of live.entries()) {
    const file = logPath(path, generation);
    const text = await readFile(file, "utf8");
    const { records, torn } = parseLog(text, file);
    changes.push(...records);
    if (torn > 0) {
      if (i !== live.length - 1) throw new StateFileError(`${file}: damaged records before the newest log`);
      notices.push(
        `${file}: dropped ${torn} incomplete record${torn === 1 ? "" : "s"} at its end (written when the process stopped, never acknowledged)`,
      );
    }
  }
  // A log written from here on continues after every generation on disk, and after the one the snapshot
  // says its log continues in: that one may never have been written (no change came after the snapshot).
  return { snapshot, changes, generation: Math.max(generations.at(-1) ?? 0, from), notices };
}

/** The good records of one log file, and how many damaged ones end it. */
export function parseLog(text: string, file: string): { records: Change[]; torn: number } {
  // The log's unwritten space is zeros, and a record never holds a zero byte (JSON escapes it). Whatever
  // follows the first zero came from a write whose fsync never finished (a group is acknowledged only when
  // all of it is on disk, and the next is written only after), so it is a torn tail however it reads.
  const unwritten = text.indexOf("\0");
  const after =
    unwritten < 0
      ? 0
      : text
          .slice(unwritten)
          .split(/[\0\n]+/)
          .filter(Boolean).length;
  const lines = (unwritten < 0 ? text : text.slice(0, unwritten)).split("\n");
  // A file that ends in "\n" splits into a last empty piece; anything else there is a torn record.
  const last = lines.pop() as string;
  const records: Change[] = [];
  let bad = after + (last.length > 0 ? 1 : 0);
  let firstBad = -1;
  for (const [n, line] of lines.entries()) {
    const record = decode(line);
    if (record === null) {
      if (firstBad < 0) firstBad = n;
      bad++;
      continue;
    }
    if (firstBad >= 0) throw new StateFileError(`${file}: record ${firstBad + 1} is damaged`);
    records.push(record);
  }
  return { records, torn: bad };
}

function decode(line: string): Change | null {
  if (line.length < 10 || line[8] !== " ") return null;
  const json = line.slice(9);
  if (crc32(json).toString(16).padStart(8, "0") !== line.slice(0, 8)) return null;
  try {
    return JSON.parse(json) as Change;
  } catch {
    return null;
  }
}

export function encodeRecord(change: Change): string {
  const json = JSON.stringify(change);
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
}

interface Batch {
  generation: number;
  text: string[];
  bytes: number;
  done: { resolve: () => void; reject: (error: unknown) => void }[];
}

export interface ChangeLogOptions {
  /** The log could not be written; no later change can be made durable. */
  onFatal: (error: unknown) => void;
  /** Enough has been logged since the last snapshot that a new one is due (the host calls `compact`). */
  onFull?: () => void;
  compactAfterRecords?: number;
  compactAfterBytes?: number;
}

/** What `compact` needs of a simulator: a consistent view of its world between two changes. */
export interface Checkpointer {
  checkpoint<T>(take: (world: Snapshot) => T): Promise<T>;
}

export class ChangeLog implements ChangeSink {
  private readonly queue: Batch[] = [];
  private pumping: Promise<void> | null = null;
  private file: FileHandle | null = null;
  private fileGeneration = -1;
  /** Where the next record goes in the current file, and how far zeros have been written ahead of it. */
  private end = 0;
  private zeroedTo = 0;
  private records = 0;
  private bytes = 0;
  private compacting: Promise<void> | null = null;
  private failed: unknown = null;
  /** Completed fsyncs, for tests and the benchmark. */
  syncs = 0;

  private readonly path: string;
  private generation: number;
  private readonly options: ChangeLogOptions;
  /** Appends to generation `generation + 1`: `generation` is the newest one already on disk. */
  constructor(path: string, generation: number, options: ChangeLogOptions) {
    this.path = path;
    this.generation = generation;
    this.options = options;
    this.generation++;
  }

  record(change: Change, durable: boolean): Promise<void> | undefined {
    if (this.failed !== null) return durable ? Promise.reject(this.failed) : undefined;
    const line = encodeRecord(change);
    let batch = this.queue.at(-1);
    if (batch === undefined || batch.generation !== this.generation) {
      batch = { generation: this.generation, text: [], bytes: 0, done: [] };
      this.queue.push(batch);
    }
    batch.text.push(line);
    batch.bytes += line.length;
    this.records++;
    this.bytes += line.length;
    const options = this.options;
    // After a reset nothing before it matters: a snapshot now spares a restart the replay and the rebuild.
    if (
      change.kind === "reset" ||
      change.kind === "restore" ||
      this.records >= (options.compactAfterRecords ?? COMPACT_AFTER_RECORDS) ||
      this.bytes >= (options.compactAfterBytes ?? COMPACT_AFTER_BYTES)
    ) {
      options.onFull?.();
    }
    const promise = durable
      ? new Promise<void>((resolve, reject) => (batch as Batch).done.push({ resolve, reject }))
      : undefined;
    this.pumping ??= this.pump();
    return promise;
  }

  /** Resolves when everything recorded so far is on disk. */
  async flush(): Promise<void> {
    while (this.pumping) await this.pumping;
    if (this.failed !== null) throw this.failed;
  }

  /**
   * Writes the world as a new snapshot and deletes the log it replaces. The view is taken between two
   * changes; the log moves to a new generation at that same instant, so every change is in exactly one of
   * the snapshot and the log that continues from it.
   */
  compact(sim: Checkpointer): Promise<void> {
    this.compacting ??= this.doCompact(sim).finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  private async doCompact(sim: Checkpointer): Promise<void> {
    const { text, replaced } = await sim.checkpoint((world) => {
      const replaced = this.generation;
      this.generation++;
      this.records = 0;
      this.bytes = 0;
      return { text: encodeSnapshot({ ...world, log: { generation: this.generation } }), replaced };
    });
    await writeFileAtomic(this.path, text);
    // The replaced records may still be on their way to their file; the snapshot holds them already.
    await this.flush();
    for (const g of await logGenerations(this.path)) {
      if (g <= replaced) await unlink(logPath(this.path, g)).catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.flush();
    // The zeros ahead are not needed by a log that takes no more records.
    await this.file?.truncate(this.end);
    await this.file?.close();
    this.file = null;
  }

  private async pump(): Promise<void> {
    try {
      for (let batch = this.queue.shift(); batch !== undefined; batch = this.queue.shift()) {
        try {
          const file = await this.fileFor(batch.generation);
          // Written synchronously: into the page cache, which takes microseconds, where a trip to libuv's
          // threads would add a hop to every group. The fsync after it is what the writers wait for.
          const bytes = Buffer.from(batch.text.join(""));
          writeAll(file.fd, bytes, this.end);
          this.end += bytes.length;
          if (this.zeroedTo - this.end < this.zeroStep() / 2) this.writeZerosAhead(file.fd);
          await file.datasync();
          this.syncs++;
        } catch (error) {
          this.failed = error;
          for (const b of [batch, ...this.queue.splice(0)]) for (const d of b.done) d.reject(error);
          this.options.onFatal(error);
          return;
        }
        for (const d of batch.done) d.resolve();
      }
    } finally {
      this.pumping = null;
    }
  }

  /**
   * The log's space is written with zeros ahead of its records, as PostgreSQL does its WAL segments: a
   * record then lands in blocks the file already has, so its fdatasync flushes the data and no metadata
   * (an append changes the file's size, and on ext4 each such fdatasync waits for a journal commit; about
   * a third slower here). The reader stops at the first zero byte.
   */
  private writeZerosAhead(fd: number): void {
    const step = this.zeroStep();
    const from = Math.max(this.zeroedTo, this.end);
    writeAll(fd, Buffer.alloc(step), from);
    this.zeroedTo = from + step;
  }

  /**
   * As much as the file has been given so far, 16 KiB to 1 MiB: the steps about double, so a sandbox's log
   * that takes a few changes stays small and a busy one is given room a megabyte at a time.
   */
  private zeroStep(): number {
    return Math.min(MAX_ZERO_AHEAD, Math.max(FIRST_ZERO_AHEAD, this.zeroedTo));
  }

  private async fileFor(generation: number): Promise<FileHandle> {
    if (this.file !== null && this.fileGeneration === generation) return this.file;
    await this.file?.close();
    // A generation's file is always new ("wx"): records go at positions of their own, not O_APPEND's.
    this.file = await open(logPath(this.path, generation), "wx", 0o600);
    this.fileGeneration = generation;
    this.end = 0;
    this.zeroedTo = 0;
    // The new file's name must survive a crash as well as what is written into it.
    await syncDirectory(dirname(this.path));
    return this.file;
  }
}

/** `writeSync` may write less than asked (a disk filling up); what is left is written, or it throws. */
function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; )
    done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
