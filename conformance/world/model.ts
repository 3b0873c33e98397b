/**
 * The kit's model of the world the API description defines, as far as one run can see it: the keys of two
 * accounts, one Audience's sharing flags and members, the Formations and checkout sessions the run made.
 * Every command updates it and every answer is judged against it; the rules below are the description's,
 * written once, so that each command and each re-read asks the same question the same way.
 */
import type { Role } from "../lib/http/target.ts";

export interface KeyRec {
  id: string;
  key: string;
  account: Role;
  alive: boolean;
}

export interface FormationRec {
  id: string;
  creator: Role;
  shared: boolean;
  alive: boolean;
  /** The status last seen (building, ready, failed). */
  status: string;
  /** The subgroup ids of the hypothesis it was made from (a recompute keeps them). */
  subgroups: string[];
}

export interface SessionRec {
  id: string;
  account: Role;
  status: string;
  idempotencyKey: string;
  body: Record<string, unknown>;
  /** The purchase as created (currency and line items): immutable, a refresh included. */
  purchase: string;
}

export interface World {
  audienceId: string;
  name: string;
  isPublic: boolean;
  isSharedWithTeam: boolean;
  isLinkSharingEnabled: boolean;
  /** Every member of the Audience (learned from the owner's view when the sequence starts). */
  members: Set<string>;
  keys: KeyRec[];
  formations: FormationRec[];
  sessions: SessionRec[];
  /** Roles that followed during the sequence (unfollowed again by the cleanup). */
  followers: Set<Role>;
  /** Direct collaborators removed during the sequence (only the simulator's reset brings them back). */
  removed: Set<Role>;
  /** Copies the sequence made, with who made them (deleted by the cleanup). */
  copies: { id: string; by: Role }[];
}

/** The roles of the default scenario as they stand to the Audience `main` (src/scenarios/default.ts). */
const DIRECT: Partial<Record<Role, "owner" | "admin" | "member">> = {
  owner: "owner",
  admin: "admin",
  member: "member",
};

/** The role's direct relation to the Audience, unless it was removed. */
function direct(w: World, role: Role): "owner" | "admin" | "member" | undefined {
  return w.removed.has(role) ? undefined : DIRECT[role];
}

/** Owner, direct members, and team members while the Audience is team-shared. */
export function isCollaborator(w: World, role: Role): boolean {
  return direct(w, role) !== undefined || (role === "teammate" && w.isSharedWithTeam);
}

/** Collaborators are managed by the owner or a direct admin. */
export function isManager(w: World, role: Role): boolean {
  const d = direct(w, role);
  return d === "owner" || d === "admin";
}

/** A direct collaborator who accepted an invitation (the owner is not one). */
export function isListedCollaborator(w: World, role: Role): boolean {
  const d = direct(w, role);
  return d === "admin" || d === "member";
}

/** GET rules: collaborators, Study members (cascade), and anyone authenticated while it is public. */
export function canView(w: World, role: Role): boolean {
  return isCollaborator(w, role) || role === "studyViewer" || w.isPublic;
}

/** PUT rules: collaborators only; public and Study-link viewers get 404. */
export const canEdit = isCollaborator;

export function memberRole(w: World, role: Role): string {
  const d = direct(w, role);
  if (d) return d;
  return role === "teammate" && w.isSharedWithTeam ? "team_member" : "public_viewer";
}

/** Shared Formations reach every viewer; private ones only their creator. */
export function canSeeFormation(w: World, f: FormationRec, role: Role): boolean {
  return f.alive && canView(w, role) && (f.shared || f.creator === role);
}

/** Collaborators mutate shared Formations and their own private ones; other viewers only their own private ones. */
export function canMutateFormation(w: World, f: FormationRec, role: Role): boolean {
  if (!f.alive || !canView(w, role)) return false;
  if (isCollaborator(w, role)) return f.shared || f.creator === role;
  return !f.shared && f.creator === role;
}

export function liveKeys(w: World, account: Role): KeyRec[] {
  return w.keys.filter((k) => k.alive && k.account === account);
}

/** The `i`-th of `xs`, wrapping around: steps name things by index, whatever the model holds. */
export const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length] as T;
