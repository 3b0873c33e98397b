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
  /** The stream's position, to be saved with the state (JSON-serialisable). */
  state(): RngState;
  /** Continues from a saved position, so a reloaded simulator draws exactly what it would have drawn. */
  restore(state: RngState): void;
}

/** The seed and the four sfc32 words. */
export interface RngState {
  seed: number;
  a: number;
  b: number;
  c: number;
  d: number;
}

/** The character codes of the hex digits, by value (generators/ids.ts writes identifiers with them too). */
export const HEX_CODES: readonly number[] = [..."0123456789abcdef"].map((c) => c.charCodeAt(0));
const DASH = 45;
/** One UUID's character codes, written in place: a scenario draws thousands of UUIDs as it is built. */
const uuidCodes: number[] = new Array(36).fill(0);

/** FNV-1a over the label, mixed with the seed: a stable 32-bit seed for a forked stream. */
export function hashSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * sfc32 state in a class: methods live on the prototype, so forking (done once per persona) allocates one
 * small object instead of a closure per method.
 */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  readonly seed: number;
  constructor(seed: number) {
    this.seed = seed;
    this.a = 0x9e3779b9 ^ seed;
    this.b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
    this.c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
    // Warm up so that nearby seeds diverge before the first draw.
    for (let i = 0; i < 12; i++) this.next();
  }

  next(): number {
    return this.word() / 4294967296;
  }

  /** The next 32-bit output, unsigned. */
  private word(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick() from an empty array");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  chars(length: number, alphabet: string): string {
    let s = "";
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }

  /**
   * 32 hex digits drawn as `chars(32, "0123456789abcdef")` draws them (a digit is the top four bits of a
   * draw: `Math.floor(next() * 16)`), the 13th set to the version (4) and the 17th to the variant (10xx),
   * with the dashes of a UUID. Written as character codes: the default world draws over 5,000 of them
   * before it can answer, and a string built a digit at a time cost more than the rest of a Mind's fields.
   */
  uuid(): string {
    let j = 0;
    for (let i = 0; i < 32; i++) {
      if (i === 8 || i === 12 || i === 16 || i === 20) uuidCodes[j++] = DASH;
      const v = this.word() >>> 28;
      uuidCodes[j++] = HEX_CODES[i === 12 ? 4 : i === 16 ? (v & 0x3) | 0x8 : v] as number;
    }
    return String.fromCharCode.apply(null, uuidCodes);
  }

  fork(label: string): Rng {
    return new Sfc32(hashSeed(this.seed, label));
  }

  state(): RngState {
    return { seed: this.seed, a: this.a, b: this.b, c: this.c, d: this.d };
  }

  restore(state: RngState): void {
    if (state.seed !== this.seed)
      throw new RangeError(`RNG state is for seed ${state.seed}, not ${this.seed}`);
    for (const word of [state.a, state.b, state.c, state.d]) {
      if (!Number.isInteger(word) || word < -0x80000000 || word > 0x7fffffff)
        throw new RangeError("RNG state words must be 32-bit integers");
    }
    this.a = state.a;
    this.b = state.b;
    this.c = state.c;
    this.d = state.d;
  }
}

export function createRng(seed: number): Rng {
  return new Sfc32(seed >>> 0);
}
