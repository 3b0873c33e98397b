/**
 * A Map some of whose values are made only when first read. The default scenario's 5,200-member panel is
 * the larger part of building its world (about 30 ms of generated personas, and the garbage collection
 * they cause, before the server could answer anything); most sessions never read one of them. Its Minds
 * are registered with their IDs and a maker, and made one by one as requests reach them.
 *
 * It behaves as a Map holding every value made would: `get`, `has`, `size`, iteration (order included:
 * a deferred entry keeps the place it was registered in) and `forEach` are those of the full Map, and
 * reading a deferred value makes it, once. A maker must give the same value whenever it runs, so that
 * when it runs is never seen. Code that only needs the values made so far (what is already there to
 * freeze, or to look at for work in flight, which a value not yet made cannot have) reads `madeEntries`,
 * in no promised order.
 */

/** A Map whose values may be made on demand; `madeEntries` walks those made so far. */
export interface MadeOnDemand<K, V> extends ReadonlyMap<K, V> {
  madeEntries(): IterableIterator<[K, V]>;
}

/**
 * In the underlying Map a deferred entry holds, in place of its value, a number: its slot, which names its
 * maker and the index the maker is called with. Values are objects, so a number is never one; and a batch
 * of entries costs one Map entry and two array slots each, not a closure and a second Map.
 */
export class DeferredMap<K, V extends object> extends Map<K, V> implements MadeOnDemand<K, V> {
  private makers: ((index: number) => V)[] = [];
  private indexes: number[] = [];
  private waiting = 0;

  /** `keys[i]` holds `make(i)`, made when first read. */
  deferAll(keys: readonly K[], make: (index: number) => V): this {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as K;
      if (typeof super.get(key) !== "number") this.waiting++;
      super.set(key, this.makers.length as unknown as V);
      this.makers.push(make);
      this.indexes.push(i);
    }
    return this;
  }

  /** Entries still waiting to be made. */
  get deferred(): number {
    return this.waiting;
  }

  /** Whether `key` holds a value not made yet (reading it would make it). */
  isDeferred(key: K): boolean {
    return typeof super.get(key) === "number";
  }

  override get(key: K): V | undefined {
    const value = super.get(key);
    return typeof value === "number" ? this.make(key, value) : value;
  }

  override set(key: K, value: V): this {
    if (typeof super.get(key) === "number") this.waiting--;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (typeof super.get(key) === "number") this.waiting--;
    return super.delete(key);
  }

  override clear(): void {
    this.makers = [];
    this.indexes = [];
    this.waiting = 0;
    super.clear();
  }

  override *entries(): MapIterator<[K, V]> {
    // Setting a key the iteration has reached neither moves it nor visits it again.
    for (const [key, value] of super.entries())
      yield [key, typeof value === "number" ? this.make(key, value) : value];
  }

  override *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  override forEach(each: (value: V, key: K, map: Map<K, V>) => void, self?: unknown): void {
    for (const [key, value] of this.entries()) each.call(self, value, key, this);
  }

  *madeEntries(): IterableIterator<[K, V]> {
    for (const entry of super.entries()) if (typeof entry[1] !== "number") yield entry;
  }

  private make(key: K, slot: number): V {
    const value = (this.makers[slot] as (index: number) => V)(this.indexes[slot] as number);
    this.waiting--;
    super.set(key, value);
    return value;
  }
}

/** The entries of `map` made so far: all of them, unless it makes some on demand. */
export function madeEntries<K, V>(map: ReadonlyMap<K, V>): Iterable<[K, V]> {
  return "madeEntries" in map && typeof map.madeEntries === "function"
    ? (map as MadeOnDemand<K, V>).madeEntries()
    : map.entries();
}
