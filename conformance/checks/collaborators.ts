/**
 * Collaborators: managers only, oldest first, the owner never removed, a removed person loses access.
 */
import type { CheckDef } from "../lib/context.ts";
import { sortedAsc } from "./ordering.ts";

export const collaborators: CheckDef = {
  name: "domain/collaborators",
  title:
    "collaborators: managers only (403 COLLABORATORS_MANAGER_ONLY), owner excluded, oldest first, owner not removable",
  needs: { roles: ["owner", "member", "outsider"], users: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const rule =
      "API description, collaborators: owner or direct admin only (403 `COLLABORATORS_MANAGER_ONLY`), 404 when not visible; list oldest first, owner excluded, only accepted invitations; removing the owner is 400 `COLLABORATOR_IS_OWNER`";
    const audienceId = ctx.target.audience("main");
    const list = await ctx.call({ op: "listCollaborators", params: { audienceId }, as: ctx.as("owner") });
    if (ctx.expect(list.status === 200, rule, `the owner's list answered ${list.status}`, list)) {
      const rows = (list.body?.data ?? []) as { userId: string; joinedAt: string }[];
      ctx.expect(
        !rows.some((r) => r.userId === ctx.target.user("owner")),
        rule,
        "the owner is listed as a collaborator",
        list,
      );
      ctx.expect(sortedAsc(rows.map((r) => r.joinedAt)), rule, "collaborators are not oldest first", list);
    }
    const byMember = await ctx.call({
      op: "listCollaborators",
      params: { audienceId },
      as: ctx.as("member"),
    });
    ctx.expect(
      byMember.status === 403 && byMember.body?.data?.code === "COLLABORATORS_MANAGER_ONLY",
      rule,
      `a direct member answered ${byMember.status} ${byMember.body?.data?.code ?? ""}`,
      byMember,
    );
    if (ctx.target.has("admin")) {
      const byAdmin = await ctx.call({
        op: "listCollaborators",
        params: { audienceId },
        as: ctx.as("admin"),
      });
      ctx.expect(byAdmin.status === 200, rule, `a direct admin answered ${byAdmin.status}`, byAdmin);
    }
    const byOutsider = await ctx.call({
      op: "listCollaborators",
      params: { audienceId },
      as: ctx.as("outsider"),
    });
    ctx.expect(
      byOutsider.status === 404,
      rule,
      `an outsider answered ${byOutsider.status}, not 404`,
      byOutsider,
    );
    if (ctx.info.readOnly) return;
    if (ctx.info.users.admin) {
      const byMemberRemove = await ctx.call({
        op: "removeCollaborator",
        params: { audienceId, userId: ctx.target.user("admin") },
        as: ctx.as("member"),
      });
      ctx.expect(
        byMemberRemove.status === 403 && byMemberRemove.body?.data?.code === "COLLABORATORS_MANAGER_ONLY",
        rule,
        `a direct member removing a collaborator answered ${byMemberRemove.status} ${byMemberRemove.body?.data?.code ?? ""}`,
        byMemberRemove,
      );
    }
    const owner = await ctx.call({
      op: "removeCollaborator",
      params: { audienceId, userId: ctx.target.user("owner") },
      as: ctx.as("owner"),
    });
    ctx.expect(
      owner.status === 400 && owner.body?.data?.code === "COLLABORATOR_IS_OWNER",
      rule,
      `removing the owner answered ${owner.status} ${owner.body?.data?.code ?? ""}`,
      owner,
    );
  },
};
