/**
 * A Map over a shared one that is never changed: reads fall through to it, changes stay in this one. A
 * world's Minds table is one (src/core/world/template.ts): a sandbox of the default scenario used to copy a
 * 5,000-entry Map, the larger part of what each sandbox cost in memory, to change a handful of entries.
 *
 * It behaves as a Map holding the same entries would, iteration order included: the shared entries first
 * in their order (one set again keeps its place), then those added here in the order they were added (a
 * shared key deleted and set again moves to the end, as in a Map).
 */
import { type MadeOnDemand, madeEntries } from "./deferred-map.ts";

export class LayeredMap<K, V> extends Map<K, V> implements MadeOnDemand<K, V> {
  /** Shared keys deleted here (and, if set again since, living among this map's own entries). */
  private readonly hidden = new Set<K>();
  /** Shared keys set here while still in their shared place. */
  private readonly inPlace = new Set<K>();

  private base: ReadonlyMap<K, V>;
  constructor(base: ReadonlyMap<K, V>) {
    super();
    this.base = base;
  }

  override get(key: K): V | undefined {
    // Most reads are of shared entries: one lookup here, one in the base.
    const own = super.get(key);
    if (own !== undefined || (super.size > 0 && super.has(key))) return own;
    return this.hidden.size > 0 && this.hidden.has(key) ? undefined : this.base.get(key);
  }

  override has(key: K): boolean {
    return super.has(key) || (!this.hidden.has(key) && this.base.has(key));
  }

  override set(key: K, value: V): this {
    if (!super.has(key) && !this.hidden.has(key) && this.base.has(key)) this.inPlace.add(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    const had = this.has(key);
    if (this.base.has(key)) this.hidden.add(key);
    this.inPlace.delete(key);
    super.delete(key);
    return had;
  }

  override clear(): void {
    this.base = new Map();
    this.hidden.clear();
    this.inPlace.clear();
    super.clear();
  }

  override get size(): number {
    return this.base.size - this.hidden.size + super.size - this.inPlace.size;
  }

  override *entries(): MapIterator<[K, V]> {
    for (const [key, value] of this.base) {
      if (this.hidden.has(key)) continue;
      yield [key, this.inPlace.has(key) ? (super.get(key) as V) : value];
    }
    for (const entry of super.entries()) if (!this.inPlace.has(entry[0])) yield entry;
  }

  override *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  override *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  /**
   * What this map holds beyond its base: its own entries (those set in a shared entry's place included) and
   * the shared keys it hid. Two maps over the same base whose layers agree hold the same entries, the base
   * being never changed: a comparison need not read (or make) the shared entries.
   */
  layer(): { base: ReadonlyMap<K, V>; own: [K, V][]; hidden: K[] } {
    return { base: this.base, own: [...super.entries()], hidden: [...this.hidden] };
  }

  /** The entries made so far (src/core/world/deferred-map.ts), when the base makes some on demand. */
  *madeEntries(): IterableIterator<[K, V]> {
    for (const entry of madeEntries(this.base))
      if (!this.hidden.has(entry[0]) && !this.inPlace.has(entry[0])) yield entry;
    // This map's own entries, those set in a shared entry's place included, were all made.
    yield* super.entries();
  }

  override forEach(each: (value: V, key: K, map: Map<K, V>) => void, self?: unknown): void {
    for (const [key, value] of this.entries()) each.call(self, value, key, this);
  }
}
