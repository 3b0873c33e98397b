/**
 * The request log of `serve` (one line per answer, pretty or JSON). Lines are held and written together, at
 * most HOLD_MS after the first of them (or once FLUSH_BYTES are held): on Linux a write to a pipe or a file
 * is a synchronous system call made while the answers wait, and the reader is woken for each. Written once
 * per turn of the event loop, the log was still the largest part of what an auth/me cost beyond bare
 * node:http under load (about 2.5 µs of 18, `--cpu-prof`); a person reading it does not see 25 ms.
 * What is held is bytes, copied in as each line is made, not the lines: strings held that long outlive
 * young collections and are promoted, and the log then doubled the time spent collecting garbage.
 * Whatever is still held is written on exit.
 */
import type { JournalEntry } from "../core/control/journal.ts";
import type { LogFormat } from "./args.ts";

export type LoggedEntry = JournalEntry & { sandbox?: string };

/** Where the lines go: stdout, or a test's stand-in. */
export interface LineSink {
  write(bytes: Uint8Array): unknown;
}

/** The longest a line is held before it is written... */
export const HOLD_MS = 25;
/** ...unless this much is held before... */
const FLUSH_BYTES = 16 * 1024;
/** ...in a buffer this size, handed to the write whole (a line that may not fit flushes it first). */
const HOLD_BYTES = 2 * FLUSH_BYTES;
/** UTF-8 bytes a UTF-16 unit can take at most: a line that may not fit goes out on its own. */
const MAX_BYTES_PER_UNIT = 3;

export function requestLogger(
  format: LogFormat,
  out: LineSink = process.stdout,
  onExit: (flush: () => void) => void = (flush) => process.on("exit", flush),
  holdMs = HOLD_MS,
): (entry: LoggedEntry) => void {
  // Outside the heap: the young generation is not filled by what waits here.
  let held = Buffer.allocUnsafeSlow(HOLD_BYTES);
  let used = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (used === 0) return;
    // Handed over whole (a write may finish later), and a new buffer takes the next lines.
    const bytes = held.subarray(0, used);
    held = Buffer.allocUnsafeSlow(HOLD_BYTES);
    used = 0;
    out.write(bytes);
  };
  onExit(flush);
  const line = format === "json" ? jsonLine : prettyLine;
  return (entry) => {
    const text = line(entry);
    const most = text.length * MAX_BYTES_PER_UNIT;
    if (most > HOLD_BYTES - used) flush();
    if (most > HOLD_BYTES) {
      out.write(Buffer.from(text));
      return;
    }
    used += held.write(text, used);
    if (used >= FLUSH_BYTES) flush();
    // Not unref'd: the lines are written even when nothing else keeps the process up.
    else if (timer === null) timer = setTimeout(flush, holdMs);
  };
}

/**
 * Now as ISO 8601, made once per millisecond: under load many lines share one, and a Date and its text per
 * line were a twentieth of the CPU of an auth/me.
 */
let lastMs = -1;
let lastIso = "";
function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function jsonLine(e: LoggedEntry): string {
  const line = {
    time: nowIso(),
    simTime: e.at,
    method: e.method,
    path: e.path,
    status: e.status,
    ms: e.ms,
    userId: e.userId,
    ...(e.sandbox ? { sandbox: e.sandbox } : {}),
  };
  return `${JSON.stringify(line)}\n`;
}

function prettyLine(e: LoggedEntry): string {
  const time = nowIso().slice(11, 23);
  const where = e.sandbox ? ` [sandbox ${e.sandbox}]` : "";
  return `${time} ${e.method} ${e.path} ${e.status} ${e.ms}ms${where}\n`;
}
