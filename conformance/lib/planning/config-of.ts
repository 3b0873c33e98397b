/**
 * A deployment config for a simulator, written from its manifest as a backend team would write one for
 * its staging: keys by role, the IDs it may read, those it may change. What the deployment-mode harness
 * and the deployment bench hand the kit instead of the control plane.
 */
import type { ManifestShape as Manifest } from "../http/target.ts";

export interface ConfigOptions {
  /** Audience handles the run may change (default: the ones the checks ask for). */
  changeable?: readonly string[];
  rateLimitPerMinute?: number | null;
  pollTimeoutMs?: number;
  /** The deadlines of background machines, as a config states them (`{ exportMs: 15000 }`). */
  deadlines?: Record<string, number>;
}

export function configOf(m: Manifest, baseUrl: string, o: ConfigOptions = {}): Record<string, unknown> {
  const audiences = Object.fromEntries(Object.entries(m.audiences).map(([h, a]) => [h, a.id]));
  const users = Object.entries(m.users);
  const changeable = (o.changeable ?? ["main", "private", "atCap", "empty"]).filter((h) => audiences[h]);
  return {
    baseUrl,
    // The simulator serves the API host's prefix on the same origin.
    extraPrefixes: ["/v1"],
    keys: Object.fromEntries(users.map(([h, u]) => [h, u.apiKey])),
    users: Object.fromEntries(users.map(([h, u]) => [h, u.id])),
    plans: Object.fromEntries(users.map(([h, u]) => [h, u.plan])),
    readable: {
      audiences,
      minds: Object.fromEntries(Object.entries(m.minds).map(([h, x]) => [h, x.id])),
      formations: m.formations,
    },
    changeable: { audiences: Object.fromEntries(changeable.map((h) => [h, audiences[h]])) },
    prices: Object.fromEntries(
      Object.entries(m.prices).map(([h, p]) => [
        h,
        { id: p.id, kind: p.kind, currency: p.currency, unitAmount: p.unitAmount, name: p.name },
      ]),
    ),
    pollTimeoutMs: o.pollTimeoutMs ?? 120_000,
    ...(o.deadlines ? { deadlines: o.deadlines } : {}),
    ...(o.rateLimitPerMinute ? { rateLimitPerMinute: o.rateLimitPerMinute } : {}),
  };
}
