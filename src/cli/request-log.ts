/**
 * The request log of `serve` (one line per answer, pretty or JSON). Lines are written once per turn of the
 * event loop, together: a write to a pipe or a terminal is a system call made while the answer waits, and
 * under load one call for many answers cost less CPU per request than one each (measured under
 * `npm run bench`, the log on as `npm start` runs it). Whatever is still held is written on exit.
 */
import type { JournalEntry } from "../core/control/journal.ts";
import type { LogFormat } from "./args.ts";

export type LoggedEntry = JournalEntry & { sandbox?: string };

/** Where the lines go: stdout, or a test's stand-in. */
export interface LineSink {
  write(text: string): unknown;
}

export function requestLogger(
  format: LogFormat,
  out: LineSink = process.stdout,
  onExit: (flush: () => void) => void = (flush) => process.on("exit", flush),
): (entry: LoggedEntry) => void {
  let held = "";
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (held === "") return;
    const text = held;
    held = "";
    out.write(text);
  };
  onExit(flush);
  const line = format === "json" ? jsonLine : prettyLine;
  return (entry) => {
    held += line(entry);
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
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
