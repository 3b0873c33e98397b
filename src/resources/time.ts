/** Timestamps are kept as epoch milliseconds and shown as ISO 8601 strings. */
import { KeptMap } from "../core/request/kept-map.ts";

/**
 * The same few instants (records' createdAt, updatedAt) are shown in nearly every answer: each is formatted
 * once. Bounded: the cache starts over when full, so a clock that keeps moving cannot grow it.
 */
const shown = new KeptMap<number, string>(4096);

export const iso = (ms: number): string => shown.get(ms) ?? shown.keep(ms, new Date(ms).toISOString());
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
