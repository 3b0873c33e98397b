/** Timestamps are kept as epoch milliseconds and shown as ISO 8601 strings. */

/**
 * The same few instants (records' createdAt, updatedAt) are shown in nearly every answer: each is formatted
 * once. Bounded: the cache starts over when full, so a clock that keeps moving cannot grow it.
 */
const shown = new Map<number, string>();
const SHOWN_MAX = 4096;

export const iso = (ms: number): string => {
  let text = shown.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (shown.size >= SHOWN_MAX) shown.clear();
    shown.set(ms, text);
  }
  return text;
};
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
