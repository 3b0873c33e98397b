/**
 * Fingerprints of what a GET returns, for "changes nothing" comparisons. Fields that move by themselves
 * (timestamps of use, progress, build status, image regeneration) are left out, so a real deployment
 * whose background work goes on during the run is not reported as changed.
 */
const VOLATILE = new Set([
  "updatedAt",
  "lastUsedAt",
  "reconciledAt",
  "progress",
  "status",
  "profileImageUrl",
  "calibration",
  "subgroups",
  "memberCount",
  "expires_at",
  "now",
]);

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    if (!VOLATILE.has(k)) out[k] = normalize((value as Record<string, unknown>)[k]);
  }
  return out;
}

export function fingerprint(value: unknown): string {
  return JSON.stringify(normalize(value)) ?? "";
}
