/**
 * Data derived from the state (a rendered audience detail, an index of an Audience's filter attributes),
 * kept until the state may have changed. Records are changed in place by handlers and jobs, so nothing
 * can tell a change by looking at the state; instead the engine calls `touch()` after everything that may
 * change it: every request other than a declared pure read or a change of API keys only (`keysOnly`: no
 * kept answer reads keys, which tests check), every job, a reset or restore, a clock move, and every time
 * code outside the core takes hold of the live state.
 */

/**
 * Past this many entries the least recently used goes, so varied queries cannot grow the memo without
 * bound, while what every one of them reads (an Audience's filter index) stays.
 */
const MAX_ENTRIES = 256;

export class StateMemo {
  private current = 0;
  /** Counts uses, so the least recently used entry is the one with the smallest `used`. */
  private uses = 0;
  private entries = new Map<string, { version: number; value: unknown; used: number }>();

  /** Changes whenever the state may have changed. */
  get version(): number {
    return this.current;
  }

  /** The state may have changed: everything derived so far is stale. */
  touch(): void {
    this.current++;
    if (this.entries.size > 0) this.entries = new Map();
  }

  /** The value derived under the current version, or undefined. */
  peek<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (e === undefined || e.version !== this.current) return undefined;
    // A hit only counts: moving the entry to the end of the map on every hit (a delete and a set) cost
    // allocations on the path every reused answer takes. The count is searched only when the memo is full.
    e.used = ++this.uses;
    return e.value as T;
  }

  /**
   * Keeps a value derived from the state as it was at `version`; dropped if the state may have changed
   * since (an async handler read the state, then waited).
   */
  set(key: string, value: unknown, version: number): void {
    if (version !== this.current) return;
    if (!this.entries.has(key) && this.entries.size >= MAX_ENTRIES) this.evict();
    this.entries.set(key, { version, value, used: ++this.uses });
  }

  /** The value for `key`, derived now if it is not known for the current state. */
  get<T>(key: string, derive: () => T): T {
    const known = this.peek<T>(key);
    if (known !== undefined) return known;
    const version = this.current;
    const value = derive();
    this.set(key, value, version);
    return value;
  }

  private evict(): void {
    let oldest: string | undefined;
    let least = Number.POSITIVE_INFINITY;
    for (const [key, e] of this.entries) {
      if (e.used < least) {
        least = e.used;
        oldest = key;
      }
    }
    if (oldest !== undefined) this.entries.delete(oldest);
  }
}
