/**
 * Plan allowances. Minds per plan come from the description (Free unlimited, Individual 100, Team
 * unlimited). The Audience member cap per plan is "not shown" there: the numbers below are the simulator's
 * documented choice (README, "Simulator decisions"), and a user's `limits` override either.
 */
import type { Plan, UserRecord } from "./state.ts";

export const MIND_CAP: Readonly<Record<Plan, number>> = {
  free: Number.POSITIVE_INFINITY,
  premium: 100,
  team: Number.POSITIVE_INFINITY,
};

/** Simulator decision: Minds one Audience may hold, per plan. */
export const AUDIENCE_MEMBER_CAP: Readonly<Record<Plan, number>> = {
  free: 25,
  premium: 100,
  team: 10_000,
};

export function mindCap(user: UserRecord): number {
  return user.limits.sparks ?? MIND_CAP[user.plan];
}

export function memberCap(user: UserRecord): number {
  return user.limits.groupMembers ?? AUDIENCE_MEMBER_CAP[user.plan];
}
