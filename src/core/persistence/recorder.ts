/**
 * The parts of recording changes (src/core/persistence/changes.ts) that sit on the request path: one change at a time,
 * the headers a request was served with, and a cheap mark of whether serving it moved the world on.
 */

import type { HeaderReader } from "../request/exchange.ts";
import type { Services } from "../services.ts";
import { type Change, type ChangeSink, UNRECORDED_HEADERS } from "./changes.ts";

/**
 * Runs changes one after another. A handler may await (hashing a new key, rendering a document); without
 * this, two changes could interleave their steps, and no log that writes one change after the other could
 * replay them. Reads that change nothing never wait here.
 */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => Promise<T>): Promise<T> {
    const result = this.tail.then(step);
    this.tail = result.then(noop, noop);
    return result;
  }
}

/**
 * Where the engine's changes go, one at a time: `changing` runs a step that may change the world after
 * every change before it, and its reply waits until the sink says the changes it recorded are durable.
 */
export class Recorder {
  private readonly serial = new Serial();
  /** While a replay runs, what it makes again is not recorded again. */
  replaying = false;
  /** What the change being made waits on before its reply leaves. */
  private durable: Promise<void> | undefined;

  private readonly sink: ChangeSink | undefined;
  constructor(sink: ChangeSink | undefined) {
    this.sink = sink;
  }

  record(change: Change, durable: boolean): void {
    if (!this.sink || this.replaying) return;
    const done = this.sink.record(change, durable);
    if (durable && done) this.durable = done;
  }

  async changing<T>(step: () => Promise<T>): Promise<T> {
    let wait: Promise<void> | undefined;
    try {
      return await this.serial.run(async () => {
        this.durable = undefined;
        try {
          return await step();
        } finally {
          wait = this.durable;
          this.durable = undefined;
        }
      });
    } finally {
      if (wait) await wait;
    }
  }

  /** Runs `take` between two changes, none half made. */
  between<T>(take: () => T): Promise<T> {
    return this.serial.run(async () => take());
  }
}

/** Headers that remember what was read from them, so a replay can be served the same values. */
export class RecordingHeaders implements HeaderReader {
  private readonly seen = new Map<string, string>();

  private readonly inner: HeaderReader;
  constructor(inner: HeaderReader) {
    this.inner = inner;
  }

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
export function worldMark(world: { services: Pick<Services, "rng">; clock: Services["clock"] }): string {
  const r = world.services.rng.state();
  return `${r.a},${r.b},${r.c},${r.d},${world.clock.scheduled},${world.clock.ran}`;
}

function noop(): void {}
