/**
 * A stable digest of the simulator's state, for tests that must prove a request changed nothing (every
 * rejected request, every read) and for checking that a saved state reloads to the same world.
 *
 * The digest hashes a canonical JSON walk of the value: Map entries and object keys in sorted order, so two
 * states with the same records hash alike whatever order they were inserted in; `undefined` members are
 * skipped as JSON.stringify skips them. No string is built: the walk feeds the hash as it goes, so even the
 * default scenario's thousands of Minds digest in tens of milliseconds. The hash is cyrb53 (two 32-bit
 * multiply-xor lanes, mixed at the end), 53 bits, printed as 14 hex digits: plenty to tell states apart in a
 * test, not a cryptographic hash.
 *
 * `stateDigest` leaves out what an accepted request changes legitimately without changing any resource:
 * an API key's `lastUsedAt`, stamped on every authenticated request (including ones that are then refused),
 * and treats a resource module's empty table as absent (tables are created on first look). The rate-limit
 * windows are not in the state at all. Runtime-free: no Node imports.
 */
import type { State } from "./state.ts";

class Hasher {
  private h1: number;
  private h2: number;

  constructor(seed = 0) {
    this.h1 = 0xdeadbeef ^ seed;
    this.h2 = 0x41c6ce57 ^ seed;
  }

  text(s: string): void {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  /** A structural marker that no string content can imitate (char codes above 0xffff do not exist). */
  mark(code: number): void {
    this.h1 = Math.imul(this.h1 ^ (0x10000 + code), 2654435761);
    this.h2 = Math.imul(this.h2 ^ (0x10000 + code), 1597334677);
  }

  hex(): string {
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    const n = 4294967296 * (2097151 & h2) + (h1 >>> 0);
    return n.toString(16).padStart(14, "0");
  }
}

const M_NULL = 1;
const M_TRUE = 2;
const M_FALSE = 3;
const M_NUMBER = 4;
const M_STRING = 5;
const M_ARRAY = 6;
const M_OBJECT = 7;
const M_END = 8;
const M_KEY = 9;

export interface DigestOptions {
  /** Object keys left out wherever they occur below the value. */
  omitKeys?: ReadonlySet<string>;
}

/** Feeds one value; Maps are hashed as objects keyed by their (string) keys. */
function feed(h: Hasher, value: unknown, omit: ReadonlySet<string> | undefined): void {
  if (value === null) {
    h.mark(M_NULL);
    return;
  }
  switch (typeof value) {
    case "boolean":
      h.mark(value ? M_TRUE : M_FALSE);
      return;
    case "number":
      h.mark(M_NUMBER);
      // As JSON would write it: NaN and the infinities become null.
      h.text(Number.isFinite(value) ? String(value) : "null");
      return;
    case "string":
      h.mark(M_STRING);
      h.text(value);
      h.mark(M_END);
      return;
    case "object":
      break;
    default:
      // undefined, functions, symbols, bigints: not JSON; treated as JSON.stringify treats them in arrays.
      h.mark(M_NULL);
      return;
  }
  if (Array.isArray(value) || value instanceof Set) {
    h.mark(M_ARRAY);
    for (const v of value) feed(h, v === undefined || typeof v === "function" ? null : v, omit);
    h.mark(M_END);
    return;
  }
  h.mark(M_OBJECT);
  if (value instanceof Map) {
    const keys = [...value.keys()].map(String).sort();
    const byText = allStrings(value) ? value : new Map([...value].map(([k, v]) => [String(k), v]));
    for (const k of keys) member(h, k, byText.get(k), omit);
  } else {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    for (const k of keys) member(h, k, obj[k], omit);
  }
  h.mark(M_END);
}

function member(h: Hasher, k: string, v: unknown, omit: ReadonlySet<string> | undefined): void {
  if (v === undefined || typeof v === "function" || omit?.has(k)) return;
  h.mark(M_KEY);
  h.text(k);
  h.mark(M_END);
  feed(h, v, omit);
}

function allStrings(map: Map<unknown, unknown>): boolean {
  for (const k of map.keys()) if (typeof k !== "string") return false;
  return true;
}

/** Digest of any JSON-like value (Maps included): equal canonical JSON, equal digest. */
export function digest(value: unknown, options: DigestOptions = {}): string {
  const h = new Hasher();
  feed(h, value, options.omitKeys);
  return h.hex();
}

/** Fields of API-key records that authenticated requests stamp without changing any resource. */
const VOLATILE_KEY_FIELDS: ReadonlySet<string> = new Set(["lastUsedAt"]);

/**
 * Digest of every table of the state, in a fixed order. API keys are hashed without `lastUsedAt` unless
 * `includeVolatile` is set; every other field of every record counts.
 */
export function stateDigest(state: State, options: { includeVolatile?: boolean } = {}): string {
  const h = new Hasher();
  const tables = Object.keys(state).sort() as (keyof State)[];
  for (const name of tables) {
    h.mark(M_KEY);
    h.text(name);
    h.mark(M_END);
    const omit = name === "apiKeys" && !options.includeVolatile ? VOLATILE_KEY_FIELDS : undefined;
    // A module's table is created empty the first time it is looked at (`table()` in state.ts), by a read
    // as much as by a write: an empty table and no table are the same state.
    const value =
      name === "extra" ? new Map([...state.extra].filter(([, t]) => t.size > 0)) : (state[name] as unknown);
    feed(h, value, omit);
  }
  return h.hex();
}
