/**
 * The parts of recording changes (src/core/changes.ts) that sit on the request path: one change at a time,
 * the headers a request was served with, and a cheap mark of whether serving it moved the world on.
 */
import { UNRECORDED_HEADERS } from "./changes.ts";
import type { HeaderReader } from "./exchange.ts";
import type { World } from "./world.ts";

/**
 * Runs changes one after another. A handler may await (hashing a new key, rendering a document); without
 * this, two changes could interleave their steps, and no log that writes one change after the other could
 * replay them. Reads that change nothing never wait here.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => Promise<T>): Promise<T> {
    const result = this.tail.then(step);
    this.tail = result.then(noop, noop);
    return result;
  }
}

/** Headers that remember what was read from them, so a replay can be served the same values. */
export class RecordingHeaders implements HeaderReader {
  private readonly seen = new Map<string, string>();

  constructor(private readonly inner: HeaderReader) {}

  get(name: string): string | null {
    const value = this.inner.get(name);
    const key = name.toLowerCase();
    if (value !== null && !UNRECORDED_HEADERS.has(key)) this.seen.set(key, value);
    return value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  read(): [string, string][] {
    return [...this.seen];
  }
}

/** Headers from a record. */
export class ListedHeaders implements HeaderReader {
  private readonly map: Map<string, string>;

  constructor(entries: readonly [string, string][]) {
    this.map = new Map(entries.map(([k, v]) => [k.toLowerCase(), v]));
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
}

/**
 * Where the world's generators stand: every ID a handler makes is drawn from the random stream and every
 * background effect is a job on the clock, so a request after which neither moved made nothing new.
 * Refused requests (4xx) change nothing else (src/robustness proves it); one whose mark moved anyway is
 * recorded all the same, because a replay without it would draw every later ID differently.
 */
export function worldMark(world: World): string {
  const r = world.services.rng.state();
  return `${r.a},${r.b},${r.c},${r.d},${world.clock.scheduled},${world.clock.ran}`;
}

function noop(): void {}
