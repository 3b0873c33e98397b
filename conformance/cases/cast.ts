/**
 * Who the roles are, as the default scenario states them (the design's table, which every world the kit
 * runs against keeps, and which a deployment's config names by role): each account's plan, subscription,
 * team and SSO link, and how each stands to each Audience handle. The cases read their expected answers
 * from here, so a rule is written once over every role rather than once per role.
 */
import type { Role, TargetInfo } from "../lib/http/target.ts";
import { ROLES } from "../lib/http/target.ts";

export interface Account {
  plan: "free" | "premium" | "team";
  subscription: boolean;
  /** In a team (sharing with a team needs one). */
  team: boolean;
  sso: boolean;
}

const ACCOUNTS: Record<Role, Account> = {
  owner: { plan: "premium", subscription: true, team: true, sso: false },
  teammate: { plan: "team", subscription: true, team: true, sso: false },
  admin: { plan: "premium", subscription: true, team: false, sso: false },
  member: { plan: "premium", subscription: true, team: false, sso: false },
  outsider: { plan: "free", subscription: false, team: false, sso: false },
  sso: { plan: "premium", subscription: true, team: false, sso: true },
  solo: { plan: "premium", subscription: true, team: false, sso: false },
  publisher: { plan: "team", subscription: true, team: false, sso: false },
  studyViewer: { plan: "free", subscription: false, team: false, sso: false },
};

/** The account behind `role`: the scenario's, with the plan the target states where it states one. */
export function account(info: TargetInfo, role: Role): Account {
  const plan = info.plans[role];
  const base = ACCOUNTS[role];
  return plan === "free" || plan === "premium" || plan === "team" ? { ...base, plan } : base;
}

/** How a role stands to an Audience: its owner, a direct collaborator, a team member, or a viewer. */
export type Relation = "owner" | "admin" | "member" | "team" | "public" | "study" | "none";

/** The Audiences of the default scenario, by handle: who owns each, who else may reach it and how. */
const AUDIENCES: Record<string, Partial<Record<Role, Relation>> & { public?: boolean }> = {
  main: { owner: "owner", admin: "admin", member: "member", teammate: "team", studyViewer: "study" },
  private: { owner: "owner" },
  empty: { owner: "owner" },
  atCap: { owner: "owner" },
  soloAudience: { solo: "owner" },
  public: { publisher: "owner", public: true },
  large: { publisher: "owner", public: true },
};

export const AUDIENCE_HANDLES = Object.keys(AUDIENCES);

export function relation(role: Role, handle: string): Relation {
  const a = AUDIENCES[handle];
  if (!a) throw new Error(`the cast has no Audience ${handle}`);
  return (a[role] as Relation | undefined) ?? (a.public ? "public" : "none");
}

export const canView = (r: Relation): boolean => r !== "none";
/** Owner, direct members, and team members (while team-shared): who may edit. */
export const isCollaborator = (r: Relation): boolean =>
  r === "owner" || r === "admin" || r === "member" || r === "team";
export const isManager = (r: Relation): boolean => r === "owner" || r === "admin";

/** `currentMemberRole` as the description names it for each relation. */
export function memberRole(r: Relation): string {
  if (r === "team") return "team_member";
  if (r === "public" || r === "study") return "public_viewer";
  return r;
}

/** Every role the kit knows, in the scenario's order. */
export const EVERYONE: readonly Role[] = ROLES;

/** The owner of an Audience handle. */
export function ownerOf(handle: string): Role {
  const found = EVERYONE.find((r) => relation(r, handle) === "owner");
  if (!found) throw new Error(`the cast has no owner of ${handle}`);
  return found;
}
