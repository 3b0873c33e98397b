/**
 * Whether a check runs against a target, and why not: what the user asked (--read-only, --no-reset), what the
 * kind of target or its contract cannot offer, or what its world or config lacks.
 */
import { operations } from "../description/contract.ts";
import { ruleOperations } from "../description/rules.ts";
import type { TargetInfo } from "../http/target.ts";
import type { CheckDef } from "./context.ts";

/**
 * Why a check does not run, tagged by what the user can do about it: `asked` (--read-only, --no-reset: the
 * user chose it), `target` (what this kind of target or contract cannot offer), `missing` (the world or the
 * config lacks handles or fields the check needs: `missing` names them, and the run refuses to start).
 */
export type Skip =
  | { code: "asked"; reason: string }
  | { code: "target"; reason: string }
  | { code: "missing"; reason: string; missing: string[] };

/** Why a check cannot run against this target, or null when it can. */
export function skipReason(def: CheckDef, info: TargetInfo): string | null {
  return skipOf(def, info)?.reason ?? null;
}

export function skipOf(def: CheckDef, info: TargetInfo): Skip | null {
  // A contract given with --contract may not have every operation the check's rules govern.
  const known = operations().map((o) => o.operationId);
  const absent = [...new Set(def.rules.flatMap((r) => ruleOperations(r, known)))].filter(
    (id) => !known.includes(id),
  );
  const target = (reason: string) => ({ code: "target" as const, reason });
  if (absent.length) return target(`the contract has no operation ${absent.join(", ")}`);
  const n = def.needs ?? {};
  if ((def.mutates || n.changeable?.length) && info.readOnly)
    return { code: "asked", reason: "read-only run (--read-only)" };
  if (n.reset && info.kind !== "simulator")
    return target(
      "needs the simulator's control plane: the API cannot undo what it changes, so only a simulator, reset afterwards, may have it done",
    );
  if (n.simulator && info.kind !== "simulator") return target("needs the simulator's control plane");
  if ((n.reset || n.consumesCollaborator) && info.kind === "simulator" && !info.mayReset)
    return { code: "asked", reason: "changes the API cannot undo, and the run may not reset (--no-reset)" };
  if (n.consumesCollaborator && !info.consumable.collaborator)
    return target(
      "removes a collaborator, whom the API cannot invite back: the config's consumable.collaborator names one the run may remove",
    );
  const missing = missingNeeds(def, info);
  if (missing.length)
    return {
      code: "missing",
      missing,
      // On a simulator the world, not a config, lacks them: a scenario without the default scenario's handles.
      reason:
        info.kind === "simulator"
          ? `the simulator's world lacks the default scenario's ${missing.join(", ")} (a scenario document that "extends": "default" keeps them)`
          : `the target's config lacks ${missing.join(", ")}`,
    };
  if (n.rateLimit && info.kind !== "simulator" && (info.rateLimitPerMinute ?? 0) > 1000)
    return target("rateLimitPerMinute above 1000 is more requests than a run should spend to exhaust it");
  return null;
}

/** The handles or config fields a check needs that the target's world or config does not have. */
function missingNeeds(def: CheckDef, info: TargetInfo): string[] {
  const n = def.needs ?? {};
  const missing: string[] = [];
  if (n.rateLimit && info.kind !== "simulator" && info.rateLimitPerMinute === null)
    missing.push("rateLimitPerMinute");
  for (const r of n.roles ?? []) if (!info.keys[r]) missing.push(`keys.${r}`);
  for (const r of n.users ?? []) if (!info.users[r]) missing.push(`users.${r}`);
  for (const a of n.audiences ?? []) if (!info.audiences[a]) missing.push(`readable.audiences.${a}`);
  for (const a of n.changeable ?? [])
    if (!info.changeableAudiences.includes(a)) missing.push(`changeable.audiences.${a}`);
  for (const f of n.formations ?? []) if (!info.formations[f]) missing.push(`readable.formations.${f}`);
  for (const m of n.minds ?? []) if (!info.minds[m]) missing.push(`readable.minds.${m}`);
  for (const p of n.prices ?? []) if (!info.prices[p]) missing.push(`prices.${p}`);
  if (n.plan && info.plans[n.plan[0]] !== n.plan[1]) missing.push(`plans.${n.plan[0]}: ${n.plan[1]}`);
  const removable = n.consumesCollaborator ? info.consumable.collaborator : null;
  if (removable) {
    if (!info.audiences[removable.audience]) missing.push(`readable.audiences.${removable.audience}`);
    if (!info.keys[removable.role]) missing.push(`keys.${removable.role}`);
    if (!info.users[removable.role]) missing.push(`users.${removable.role}`);
  }
  return missing;
}
