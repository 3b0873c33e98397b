/**
 * Seeded pseudo-random numbers: the only source of randomness in the simulator.
 *
 * sfc32 is small, fast and passes PractRand for the volumes a mock server draws. `fork(label)` derives an
 * independent stream from the parent seed and a label, so that adding a draw in one place (say, one more
 * persona field) does not shift every ID generated elsewhere.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A copy of the array in a random order. */
  shuffle<T>(items: readonly T[]): T[];
  /** A version-4 UUID made from this stream. */
  uuid(): string;
  /** A string of `length` characters drawn from `alphabet`. */
  chars(length: number, alphabet: string): string;
  /** An independent stream named by `label`; the same parent seed and label give the same stream. */
  fork(label: string): Rng;
  /** The seed this stream was made from. */
  readonly seed: number;
}

const HEX = "0123456789abcdef";

/** FNV-1a over the label, mixed with the seed: a stable 32-bit seed for a forked stream. */
export function hashSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function createRng(seed: number): Rng {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
  let d = 1;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Warm up so that nearby seeds diverge before the first draw.
  for (let i = 0; i < 12; i++) next();

  const rng: Rng = {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new RangeError("pick() from an empty array");
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    chance: (p) => next() < p,
    shuffle: (items) => {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
      }
      return out;
    },
    chars: (length, alphabet) => {
      let s = "";
      for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      return s;
    },
    uuid: () => {
      const h = rng.chars(32, HEX).split("");
      h[12] = "4";
      h[16] = HEX[(Number.parseInt(h[16] as string, 16) & 0x3) | 0x8] as string;
      const s = h.join("");
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    },
    fork: (label) => createRng(hashSeed(seed, label)),
  };
  return rng;
}
