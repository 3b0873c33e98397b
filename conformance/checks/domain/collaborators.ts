/**
 * Collaborators: managers only, oldest first, the owner never removed, a removed person loses access.
 */

import { sortedAsc } from "../../lib/description/answers.ts";
import type { Role } from "../../lib/http/target.ts";
import { check } from "../../lib/running/context.ts";

export const collaborators = check(
  "domain/collaborators",
  ["collaborators/managers", "collaborators/owner-not-removable"],
  {
    needs: { roles: ["owner", "member", "outsider"], users: ["owner"], audiences: ["main"] },
    async run(ctx) {
      const audienceId = ctx.target.audience("main");
      const remove = (who: Role, as: Role) =>
        ctx.call({
          op: "removeCollaborator",
          params: { audienceId, userId: ctx.target.user(who) },
          as: ctx.as(as),
        });
      const list = await ctx.call({ op: "listCollaborators", params: { audienceId }, as: ctx.as("owner") });
      if (ctx.expectStatus(list, 200, "collaborators/managers", "the owner's list")) {
        const rows = (list.body?.data ?? []) as { userId: string; joinedAt: string }[];
        ctx.expect(
          !rows.some((r) => r.userId === ctx.target.user("owner")),
          "collaborators/managers",
          "the owner is listed as a collaborator",
          list,
        );
        ctx.expect(
          sortedAsc(rows.map((r) => r.joinedAt)),
          "collaborators/managers",
          "collaborators are not oldest first",
          list,
        );
      }
      const byMember = await ctx.call({
        op: "listCollaborators",
        params: { audienceId },
        as: ctx.as("member"),
      });
      ctx.expectCode(
        byMember,
        403,
        "COLLABORATORS_MANAGER_ONLY",
        "collaborators/managers",
        "a direct member",
      );
      if (ctx.target.has("admin")) {
        const byAdmin = await ctx.call({
          op: "listCollaborators",
          params: { audienceId },
          as: ctx.as("admin"),
        });
        ctx.expectStatus(byAdmin, 200, "collaborators/managers", "a direct admin");
      }
      const byOutsider = await ctx.call({
        op: "listCollaborators",
        params: { audienceId },
        as: ctx.as("outsider"),
      });
      ctx.expectStatus(byOutsider, 404, "collaborators/managers", "an outsider");
      // --read-only: what follows changes the world; the summary says it was left out.
      if (ctx.info.readOnly)
        return ctx.partly("the removals by admin and member were left out (--read-only)");
      if (ctx.info.users.admin) {
        const byMemberRemove = await remove("admin", "member");
        ctx.expectCode(
          byMemberRemove,
          403,
          "COLLABORATORS_MANAGER_ONLY",
          "collaborators/managers",
          "a direct member removing a collaborator",
        );
      }
      const owner = await remove("owner", "owner");
      ctx.expectCode(
        owner,
        400,
        "COLLABORATOR_IS_OWNER",
        "collaborators/owner-not-removable",
        "removing the owner",
      );
    },
  },
);

/**
 * Removing a collaborator cannot be undone through the API (invitations are not described): on the
 * simulator the world is put back with a reset of the same scenario and seed; against a deployment this runs
 * only on a collaborator its config offers for it (`consumable.collaborator`), and the report says the
 * collaboration was used up.
 */
export const collaboratorRemoval = check("domain/collaborator-removal", ["collaborators/removal-revokes"], {
  needs: { roles: ["owner"], consumesCollaborator: true },
  mutates: true,
  async run(ctx) {
    const removable = ctx.info.consumable.collaborator;
    // The check is skipped before it runs without one (needs.consumesCollaborator); said, should that change.
    if (!removable) {
      ctx.skipped ??= "no collaborator the run may remove (consumable.collaborator)";
      return;
    }
    const audienceId = ctx.target.audience(removable.audience);
    const member = ctx.as(removable.role);
    const userId = ctx.target.user(removable.role);
    if (ctx.target.isSimulator) ctx.defer(() => ctx.target.rebuild());
    const before = await ctx.call({ op: "getAudience", params: { audienceId }, as: member });
    ctx.require(
      before.status === 200,
      "collaborators/removal-revokes",
      `${removable.role} could not read ${removable.audience} before (${before.status})`,
      before,
    );
    const gone = await ctx.call({
      op: "removeCollaborator",
      params: { audienceId, userId },
      as: ctx.as("owner"),
    });
    ctx.require(
      gone.status === 200 && gone.body?.data?.success === true,
      "collaborators/removal-revokes",
      `removal answered ${gone.status}`,
      gone,
    );
    if (!ctx.target.isSimulator)
      ctx.consume(
        `${removable.role} is no longer a collaborator of ${removable.audience} (${audienceId}): invite them again before the next run`,
      );
    const detail = await ctx.call({ op: "getAudience", params: { audienceId }, as: member });
    ctx.expect(
      detail.status === 404 || detail.body?.data?.currentMemberRole === "public_viewer",
      "collaborators/removal-revokes",
      `right after removal the person reads the Audience as ${detail.status} ${detail.body?.data?.currentMemberRole ?? ""}`,
      detail,
    );
    const edit = await ctx.call({
      op: "updateAudience",
      params: { audienceId },
      as: member,
      json: { name: before.body.data.name },
    });
    ctx.expectStatus(edit, 404, "collaborators/removal-revokes", "right after removal the person's PUT");
    const list = await ctx.call({ op: "listCollaborators", params: { audienceId }, as: ctx.as("owner") });
    ctx.expect(
      !((list.body?.data ?? []) as { userId: string }[]).some((r) => r.userId === userId),
      "collaborators/removal-revokes",
      "the removed person is still listed as a collaborator",
      list,
    );
    const again = await ctx.call({
      op: "removeCollaborator",
      params: { audienceId, userId },
      as: ctx.as("owner"),
    });
    ctx.expectStatus(again, 404, "collaborators/removal-revokes", "removing the person again");
  },
});
