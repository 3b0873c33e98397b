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
 * A DeferredMap as data (JSON): its entries in order, each made one as `[key, value]` and each run of
 * deferred ones as the batch it belongs to and the range of that batch's indexes; and each batch as its keys
 * and the recipe it was deferred with, from which `DeferredMap.fromLayout` gets its maker back. A world's
 * template is shipped that way (src/core/world/template-data.ts).
 */
export interface DeferredLayout<K, V> {
  batches: { keys: K[]; recipe: unknown }[];
  entries: ([key: K, value: V] | { batch: number; from: number; to: number })[];
}

/** Gives back the maker of a batch from the recipe it was deferred with and its keys. */
export type MakerOf<K, V> = (recipe: unknown, keys: readonly K[]) => (index: number) => V;

/**
 * In the underlying Map a deferred entry holds, in place of its value, a number: its slot, which names its
 * batch (maker, keys, recipe) and the index the maker is called with. Values are objects, so a number is
 * never one; and a batch of entries costs one Map entry and two array slots each, not a closure and a
 * second Map.
 */
export class DeferredMap<K, V extends object> extends Map<K, V> implements MadeOnDemand<K, V> {
  private batches: { keys: readonly K[]; make: (index: number) => V; recipe: unknown }[] = [];
  private slotBatch: number[] = [];
  private slotIndex: number[] = [];
  /**
   * The keys of the values made, once any was deferred (null before: then every value is): so that
   * `madeEntries` walks the 63 Minds a world's build made, not the 5,300 it deferred besides. The other
   * keys are those still deferred.
   */
  private made: Set<K> | null = null;
  /**
   * A layout not filled in yet (fromLayout): its made entries are at hand for `madeEntries` and `deferred`;
   * every other read or change fills it in first. A world's template reads its 5,300 deferred Minds' keys
   * only when a request first reads its Minds, not before the server's first answer.
   */
  private unfilled: { layout: DeferredLayout<K, V>; makerOf: MakerOf<K, V>; deferred: number } | null = null;

  /**
   * `keys[i]` holds `make(i)`, made when first read. A `recipe` (data that says how to make them, for a
   * MakerOf) lets `layout` describe the batch; without one, a map holding it has no layout.
   */
  deferAll(keys: readonly K[], make: (index: number) => V, recipe?: unknown): this {
    this.filled();
    const batch = this.batches.length;
    this.batches.push({ keys, make, recipe });
    for (let i = 0; i < keys.length; i++) this.deferAt(keys[i] as K, batch, i);
    return this;
  }

  private deferAt(key: K, batch: number, index: number): void {
    this.made ??= new Set(super.keys());
    this.made.delete(key);
    super.set(key, this.slotBatch.length as unknown as V);
    this.slotBatch.push(batch);
    this.slotIndex.push(index);
  }

  /** This map as data, or null when a batch was deferred without a recipe. */
  layout(): DeferredLayout<K, V> | null {
    this.filled();
    if (this.batches.some((b) => b.recipe === undefined)) return null;
    const entries: DeferredLayout<K, V>["entries"] = [];
    let run: { batch: number; from: number; to: number } | null = null;
    for (const [key, value] of super.entries()) {
      if (typeof value !== "number") {
        run = null;
        entries.push([key, value]);
        continue;
      }
      const batch = this.slotBatch[value] as number;
      const index = this.slotIndex[value] as number;
      if (run && run.batch === batch && run.to === index) {
        run.to++;
      } else {
        run = { batch, from: index, to: index + 1 };
        entries.push(run);
      }
    }
    return { batches: this.batches.map((b) => ({ keys: [...b.keys], recipe: b.recipe })), entries };
  }

  /**
   * The map `layout` described, each batch's maker got back from its recipe; filled in when first read
   * (its made entries and how many wait excepted). A run outside its batch is refused here, a key named
   * twice when the map is filled in: both with a RangeError.
   */
  static fromLayout<K, V extends object>(
    layout: DeferredLayout<K, V>,
    makerOf: MakerOf<K, V>,
  ): DeferredMap<K, V> {
    let deferred = 0;
    for (const entry of layout.entries) {
      if (Array.isArray(entry)) continue;
      const keys = layout.batches[entry.batch]?.keys;
      if (!keys || !(entry.from >= 0 && entry.from <= entry.to && entry.to <= keys.length))
        throw new RangeError("a run outside its batch");
      deferred += entry.to - entry.from;
    }
    const map = new DeferredMap<K, V>();
    map.unfilled = { layout, makerOf, deferred };
    return map;
  }

  /** Fills in a layout fromLayout left (every method but madeEntries and deferred calls this first). */
  private filled(): void {
    // Undefined too, while Map's constructor sets the entries it is given: fields come after.
    if (!this.unfilled) return;
    try {
      this.fill(this.unfilled.layout, this.unfilled.makerOf);
    } catch (error) {
      // Refused again at the next read, rather than read half filled in.
      super.clear();
      this.batches = [];
      this.slotBatch = [];
      this.slotIndex = [];
      throw error;
    }
    this.unfilled = null;
  }

  /** An empty map filled as `layout` says: each key once, so without the checks `set` and `deferAll` make. */
  private fill(layout: DeferredLayout<K, V>, makerOf: MakerOf<K, V>): void {
    for (const { keys, recipe } of layout.batches)
      this.batches.push({ keys, make: makerOf(recipe, keys), recipe });
    const made = new Set<K>();
    let deferred = 0;
    for (const entry of layout.entries) {
      if (Array.isArray(entry)) {
        made.add(entry[0]);
        super.set(entry[0], entry[1]);
        continue;
      }
      const keys = this.batches[entry.batch]?.keys as readonly K[];
      for (let i = entry.from; i < entry.to; i++) {
        super.set(keys[i] as K, this.slotBatch.length as unknown as V);
        this.slotBatch.push(entry.batch);
        this.slotIndex.push(i);
      }
      deferred += entry.to - entry.from;
    }
    if (super.size !== made.size + deferred) throw new RangeError("a key in the layout twice");
    this.made = made;
  }

  /** Entries still waiting to be made. */
  get deferred(): number {
    if (this.unfilled !== null) return this.unfilled.deferred;
    return this.made === null ? 0 : super.size - this.made.size;
  }

  /** Whether `key` holds a value not made yet (reading it would make it). */
  isDeferred(key: K): boolean {
    this.filled();
    return typeof super.get(key) === "number";
  }

  /** The recipe `key`'s value is deferred with, without making it; undefined once made (or without one). */
  recipeOf(key: K): unknown {
    this.filled();
    const slot = super.get(key);
    return typeof slot === "number" ? this.batches[this.slotBatch[slot] as number]?.recipe : undefined;
  }

  override get(key: K): V | undefined {
    this.filled();
    const value = super.get(key);
    return typeof value === "number" ? this.make(key, value) : value;
  }

  override has(key: K): boolean {
    this.filled();
    return super.has(key);
  }

  override get size(): number {
    this.filled();
    return super.size;
  }

  override set(key: K, value: V): this {
    this.filled();
    // Undefined, not null, while Map's constructor sets the entries it is given: fields come after.
    this.made?.add(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.filled();
    this.made?.delete(key);
    return super.delete(key);
  }

  override clear(): void {
    this.unfilled = null;
    this.batches = [];
    this.slotBatch = [];
    this.slotIndex = [];
    this.made = null;
    super.clear();
  }

  override *entries(): MapIterator<[K, V]> {
    this.filled();
    // Setting a key the iteration has reached neither moves it nor visits it again.
    for (const [key, value] of super.entries())
      yield [key, typeof value === "number" ? this.make(key, value) : value];
  }

  override keys(): MapIterator<K> {
    this.filled();
    return super.keys();
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
    if (this.unfilled !== null) {
      for (const entry of this.unfilled.layout.entries) if (Array.isArray(entry)) yield entry;
      return;
    }
    if (this.made === null) yield* super.entries();
    else for (const key of this.made) yield [key, super.get(key) as V];
  }

  private make(key: K, slot: number): V {
    const batch = this.batches[this.slotBatch[slot] as number] as { make: (index: number) => V };
    const value = batch.make(this.slotIndex[slot] as number);
    this.made?.add(key);
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
