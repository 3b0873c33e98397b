/**
 * API-key authentication. Keys are stored as SHA-256 hashes; a presented key is hashed and looked up, and
 * the stored hash is compared in constant time, so neither the map lookup's timing nor an early-exit
 * comparison tells an attacker how much of a guess was right.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { ApiKeyRecord, State, UserRecord } from "../world/state.ts";
import { KeptMap } from "./kept-map.ts";

const KEY_PREFIX = "service_";

/**
 * SHA-256 of a text as lowercase hex, the same synchronous function in every runtime (@noble/hashes,
 * bundled): WebCrypto's answers through a promise and, in Node, loads its modules on first use, while the
 * world's keys are hashed as it is built, before the first answer. A key is hashed once per header (below).
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * Authorization header to the SHA-256 of the key it carries, so that a client presenting the same key on
 * every request has it parsed and hashed once, not per request (the hash is a pure function of the header,
 * so the cache is shared and never stale). Bounded: it starts over when full, so random keys cannot grow it.
 */
const hashCache = new KeptMap<string, string>(1024);

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

/** The caller a header names, or null. A key seen before is not hashed again (its hash is cached). */
export function authenticate(state: State, header: string | null): Caller | null {
  if (header === null) return null;
  const cached = hashCache.get(header);
  if (cached !== undefined) return callerOf(state, cached);
  const raw = bearerKey(header);
  return raw ? callerOf(state, hashCache.keep(header, sha256Hex(raw))) : null;
}

function callerOf(state: State, hash: string): Caller | null {
  const keyId = state.apiKeyByHash.get(hash);
  const key = keyId ? state.apiKeys.get(keyId) : undefined;
  if (!key || !constantTimeEqual(key.hash, hash)) return null;
  const user = state.users.get(key.userId);
  return user ? { user, key } : null;
}
