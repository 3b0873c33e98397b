/**
 * Audience collaborators (description, "Audiences: collaborators"). Only the owner or a direct, accepted
 * Audience admin may list or remove them: other viewers get 403 `COLLABORATORS_MANAGER_ONLY`, callers who
 * cannot view the Audience the usual 404. Listings show accepted invitations only, oldest first, without
 * the owner. Removing someone also revokes their pending invitations for the Audience; nobody is emailed.
 */

import { ApiError, badRequest, notFound } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { AudienceRecord, DirectCollaborator } from "../../core/world/state.ts";
import { isManager, viewable } from "../access.ts";
import { iso } from "../time.ts";

export const MANAGER_ONLY_MESSAGE = "Only the owner or an admin can manage collaborators";

/** The Audience, when the caller may manage its collaborators. */
function managed(ctx: RequestContext): AudienceRecord {
  const { audience, role } = viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
  if (!isManager(role)) throw new ApiError(403, MANAGER_ONLY_MESSAGE, { code: "COLLABORATORS_MANAGER_ONLY" });
  return audience;
}

const accepted = (a: AudienceRecord, c: DirectCollaborator): boolean =>
  c.status === "accepted" && c.userId !== a.ownerId;

/** When the person joined; an accepted invitation without a recorded time counts from when it was sent. */
const joinedAt = (c: DirectCollaborator): number => c.joinedAt ?? c.invitedAt;

export const collaborators: ResourceModule = {
  routes: {
    listCollaborators: {
      authorize: (ctx) => void managed(ctx),
      handler: (ctx) => {
        const audience = managed(ctx);
        const rows = audience.collaborators
          .filter((c) => accepted(audience, c))
          .sort(
            (a, b) => joinedAt(a) - joinedAt(b) || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
          )
          .map((c) => {
            const user = ctx.state.users.get(c.userId);
            return {
              userId: c.userId,
              email: user?.email ?? null,
              name: user?.name ?? null,
              role: c.role,
              joinedAt: iso(joinedAt(c)),
            };
          });
        return { status: 200, body: { data: rows } };
      },
    },
    removeCollaborator: {
      authorize: (ctx) => void managed(ctx),
      handler: (ctx) => {
        const audience = managed(ctx);
        // UUIDs are case-insensitive; stored IDs are lower case.
        const userId = (ctx.params.userId ?? "").toLowerCase();
        if (userId === audience.ownerId) {
          throw badRequest("The owner cannot be removed", { code: "COLLABORATOR_IS_OWNER" });
        }
        if (!audience.collaborators.some((c) => c.userId === userId && accepted(audience, c))) {
          throw notFound("Collaborator not found");
        }
        // Every entry of the person goes: the membership and any invitation still pending.
        audience.collaborators = audience.collaborators.filter((c) => c.userId !== userId);
        return { status: 200, body: { data: { success: true } } };
      },
    },
  },
};
