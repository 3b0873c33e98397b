/** Durations on command lines (`serve --sandbox-ttl`, `conformance --time-budget`). */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `90s`, `30m`, `12h`, `7d` (a bare number is seconds) in ms, from 1 ms to a year; or what is wrong. */
export function parseDuration(text: string): number | "malformed" | "out of range" {
  const m = /^\s*(\d+)\s*(ms|[smhd])?\s*$/.exec(text);
  if (!m) return "malformed";
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? "s"] as number);
  return Number.isSafeInteger(ms) && ms >= 1 && ms <= 366 * 86_400_000 ? ms : "out of range";
}
