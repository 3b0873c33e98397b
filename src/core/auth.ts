/**
 * API-key authentication. Keys are stored as SHA-256 hashes; a presented key is hashed and looked up, and
 * the stored hash is compared in constant time, so neither the map lookup's timing nor an early-exit
 * comparison tells an attacker how much of a guess was right.
 */
import type { ApiKeyRecord, State, UserRecord } from "./state.ts";

const KEY_PREFIX = "service_";

/**
 * SHA-256 of a text as lowercase hex. Every runtime has WebCrypto's (`sha256Hex`), but it only answers
 * through a promise and is loaded on first use: a host with a synchronous one hands it to the engine
 * (`SimulatorOptions.sha256`; the node host's is node:crypto's), which hashes the world's keys as it is
 * built and a key on its first request without waiting.
 */
export type Sha256 = (text: string) => string | Promise<string>;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Authorization header to the SHA-256 of the key it carries, so that a client presenting the same key on
 * every request has it parsed and hashed once, not per request (the hash is a pure function of the header,
 * so the cache is shared and never stale). Bounded: it starts over when full, so random keys cannot grow it.
 */
const HASH_CACHE_MAX = 1024;
const hashCache = new Map<string, string>();

function remember(header: string, hash: string): string {
  if (hashCache.size >= HASH_CACHE_MAX) hashCache.clear();
  hashCache.set(header, hash);
  return hash;
}

export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The raw key from `Authorization: Bearer <key>`, or null when the header is missing or malformed. */
export function bearerKey(header: string | null): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!m) return null;
  const key = m[1] as string;
  return key.startsWith(KEY_PREFIX) && key.length > KEY_PREFIX.length ? key : null;
}

export interface Caller {
  user: UserRecord;
  key: ApiKeyRecord;
}

/**
 * The caller a header names, or null. Synchronous for a key seen before (its hash is cached): nearly every
 * request, and one await fewer on the path every request takes; and for a new key too when `sha256` is.
 */
export function authenticate(
  state: State,
  header: string | null,
  sha256: Sha256,
): Caller | null | Promise<Caller | null> {
  if (header === null) return null;
  const cached = hashCache.get(header);
  if (cached !== undefined) return callerOf(state, cached);
  const raw = bearerKey(header);
  if (!raw) return null;
  const hash = sha256(raw);
  return typeof hash === "string"
    ? callerOf(state, remember(header, hash))
    : hash.then((h) => callerOf(state, remember(header, h)));
}

function callerOf(state: State, hash: string): Caller | null {
  const keyId = state.apiKeyByHash.get(hash);
  const key = keyId ? state.apiKeys.get(keyId) : undefined;
  if (!key || !constantTimeEqual(key.hash, hash)) return null;
  const user = state.users.get(key.userId);
  return user ? { user, key } : null;
}
