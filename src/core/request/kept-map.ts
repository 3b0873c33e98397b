/**
 * A map that starts over when it is full: what clients send again and again (a key's header, a URL, a
 * path) is found, and what they vary without end (random keys, IDs, queries) cannot grow it. Cheaper on the
 * hot path than a least-recently-used map: a hit is one lookup and changes nothing.
 */
export class KeptMap<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` under `key` (forgetting everything first when full), and answers it. */
  keep(key: K, value: V): V {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
