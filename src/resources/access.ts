/**
 * Who may do what to an Audience (description, "Authentication" rule 9 and the Audience sections).
 *
 * Roles, strongest first: owner, direct admin, direct member, team member (when team-shared), public
 * viewer (public Audiences, and members of a Study that contains the Audience). Collaborators are the
 * first four. Callers with no role get 404, never 403, so existence is not revealed.
 */
import { notFound } from "../core/errors.ts";
import type { AudienceRecord, State, UserRecord } from "../core/world/state.ts";

export type AudienceRole = "owner" | "admin" | "member" | "team_member" | "public_viewer";

export const COLLABORATOR_ROLES: ReadonlySet<AudienceRole> = new Set([
  "owner",
  "admin",
  "member",
  "team_member",
]);

export function roleOf(state: State, audience: AudienceRecord, user: UserRecord): AudienceRole | null {
  if (audience.ownerId === user.id) return "owner";
  const direct = audience.collaborators.find((c) => c.userId === user.id && c.status === "accepted");
  if (direct) return direct.role;
  if (audience.isSharedWithTeam && user.teamId !== null) {
    const owner = state.users.get(audience.ownerId);
    if (owner?.teamId === user.teamId) return "team_member";
  }
  if (audience.isPublic || inStudyWith(state, audience, user)) return "public_viewer";
  return null;
}

function inStudyWith(state: State, audience: AudienceRecord, user: UserRecord): boolean {
  for (const s of state.studies.values()) {
    if (s.audienceIds.includes(audience.id) && (s.ownerId === user.id || s.memberUserIds.includes(user.id)))
      return true;
  }
  return false;
}

export const isCollaborator = (role: AudienceRole | null): boolean =>
  role !== null && COLLABORATOR_ROLES.has(role);
export const isManager = (role: AudienceRole | null): boolean => role === "owner" || role === "admin";

/** The Audience and the caller's role, or 404 `Audience not found` when it is missing or not viewable. */
export function viewable(state: State, id: string, user: UserRecord, message = "Audience not found") {
  const audience = state.audiences.get(id);
  const role = audience ? roleOf(state, audience, user) : null;
  if (!audience || role === null) throw notFound(message);
  return { audience, role };
}

/** Like `viewable`, but only for the owner; everyone else gets the same 404 as a missing Audience. */
export function owned(
  state: State,
  id: string,
  user: UserRecord,
  message = "Audience not found",
): AudienceRecord {
  const audience = state.audiences.get(id);
  if (!audience || audience.ownerId !== user.id) throw notFound(message);
  return audience;
}

/** Like `viewable`, but only for collaborators (edit access). */
export function editable(state: State, id: string, user: UserRecord, message = "Audience not found") {
  const { audience, role } = viewable(state, id, user, message);
  if (!isCollaborator(role)) throw notFound(message);
  return { audience, role: role as Exclude<AudienceRole, "public_viewer"> };
}
