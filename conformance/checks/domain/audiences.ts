/**
 * Audiences: who may read them (roles, sharing fields, file-URL redaction), PUT rules, follow and
 * unfollow, duplicate and its idempotent replay, delete by the owner only.
 */

import type { Exchange } from "../../lib/http/http.ts";
import type { Role } from "../../lib/http/target.ts";
import { check } from "../../lib/running/context.ts";
import {
  deleteAudienceLater,
  duplicator,
  NO_DUPLICATOR,
  ok,
  ownerOnMain,
  readAudience,
} from "../../lib/running/helpers.ts";

export const visibility = check(
  "domain/audience-visibility",
  ["audience/read-roles", "audience/member-role", "audience/sharing-fields"],
  {
    needs: { roles: ["owner", "outsider"], audiences: ["main", "private", "public"] },
    async run(ctx) {
      const table: [Role, string, string | null][] = [
        ["owner", "main", "owner"],
        ["admin", "main", "admin"],
        ["member", "main", "member"],
        ["teammate", "main", "team_member"],
        ["studyViewer", "main", "public_viewer"],
        ["outsider", "main", null],
        ["outsider", "private", null],
        ["admin", "private", null],
        ["teammate", "private", null],
        ["outsider", "public", "public_viewer"],
        ["owner", "public", "public_viewer"],
        ["publisher", "public", "owner"],
      ];
      for (const [role, handle, expected] of table) {
        if (!ctx.target.has(role)) continue;
        const ex = await readAudience(ctx, ctx.target.audience(handle), role);
        if (expected === null) {
          ctx.expectStatus(ex, 404, "audience/read-roles", `${role} reading ${handle}`);
          continue;
        }
        if (!ctx.expectStatus(ex, 200, "audience/read-roles", `${role} reading ${handle}`)) continue;
        const d = ex.body?.data ?? {};
        ctx.expect(
          d.currentMemberRole === expected,
          "audience/member-role",
          `${role} on ${handle}: currentMemberRole ${JSON.stringify(d.currentMemberRole)}, not ${expected}`,
          ex,
        );
        const sharing = ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"].filter((k) => k in d);
        if (expected === "public_viewer")
          ctx.expect(
            sharing.length === 0,
            "audience/sharing-fields",
            `${role} (public viewer) sees ${sharing.join(", ")}`,
            ex,
          );
        else
          ctx.expect(
            sharing.length === 3,
            "audience/sharing-fields",
            `${role} (collaborator) does not see all sharing fields (sees ${sharing.join(", ") || "none"})`,
            ex,
          );
      }
    },
  },
);

export const fileRedaction = check("domain/file-url-redaction", ["audience/file-redaction"], {
  needs: { roles: ["owner", "studyViewer"], audiences: ["main"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const own = await readAudience(ctx, audienceId, "owner");
    const urls = ((own.body?.data?.sources?.files ?? []) as { url?: string | null }[])
      .map((f) => f.url)
      .filter((u): u is string => typeof u === "string" && u.length > 0);
    if (urls.length === 0)
      return ctx.inconclusive(
        `the owner's view of main lists no uploaded-file URL (answered ${own.status}): nothing to look for`,
      );
    const viewer = await readAudience(ctx, audienceId, "studyViewer");
    for (const url of urls)
      ctx.expect(
        !viewer.text.includes(url),
        "audience/file-redaction",
        `a Study-cascade viewer sees the uploaded file URL ${url}`,
        viewer,
      );
  },
});

export const updateRules = check(
  "domain/audience-update",
  ["audience/update-rules", "audience/team-share-owner"],
  {
    needs: { roles: ["owner", "member", "outsider"], changeable: ["main"] },
    mutates: true,
    async run(ctx) {
      const audienceId = ctx.target.audience("main");
      const read = await readAudience(ctx, audienceId, "owner");
      ctx.requireStatus(read, 200, "audience/update-rules", "the owner reading main");
      const before = read.body.data;
      const restore = {
        name: before.name,
        isPublic: before.isPublic,
        isSharedWithTeam: before.isSharedWithTeam,
      };
      ctx.defer(() =>
        ctx.call({ op: "updateAudience", params: { audienceId }, as: ctx.as("owner"), json: restore }),
      );
      const put = (role: Role, json: unknown) =>
        ctx.call({ op: "updateAudience", params: { audienceId }, as: ctx.as(role), json });
      const renamed = await put("owner", {
        name: `  ${before.name} (conformance)  `,
        isPublic: "yes",
        isLinkSharingEnabled: !before.isLinkSharingEnabled,
      });
      if (ctx.expectStatus(renamed, 200, "audience/update-rules", "a valid rename")) {
        const d = renamed.body?.data ?? {};
        ctx.expect(
          d.name === `${before.name} (conformance)`,
          "audience/update-rules",
          `name ${JSON.stringify(d.name)} was not trimmed`,
          renamed,
        );
        ctx.expect(
          d.isPublic === before.isPublic,
          "audience/update-rules",
          "isPublic changed although it was not sent as a boolean",
          renamed,
        );
        ctx.expect(
          d.isLinkSharingEnabled === before.isLinkSharingEnabled,
          "audience/update-rules",
          "isLinkSharingEnabled changed through PUT",
          renamed,
        );
        ctx.expect(
          d.currentMemberRole === "owner",
          "audience/update-rules",
          `currentMemberRole ${d.currentMemberRole}`,
          renamed,
        );
      }
      const blank = await put("owner", { name: " \t " });
      ctx.expectStatus(blank, 400, "audience/update-rules", "a name blank after trimming");
      const byMember = await put("member", { name: before.name, isSharedWithTeam: !before.isSharedWithTeam });
      ctx.expectCode(
        byMember,
        403,
        "TEAM_SHARE_OWNER_ONLY",
        "audience/team-share-owner",
        "a member changing team sharing",
      );
      const byOutsider = await put("outsider", { name: "Not yours" });
      ctx.expectStatus(byOutsider, 404, "audience/update-rules", "an outsider's PUT");
      if (ctx.target.has("outsider") && ctx.info.audiences.public) {
        const byViewer = await ctx.call({
          op: "updateAudience",
          params: { audienceId: ctx.target.audience("public") },
          as: ctx.as("outsider"),
          json: { name: "Not yours" },
        });
        ctx.expectStatus(byViewer, 404, "audience/update-rules", "a public viewer's PUT");
      }
      if (ctx.target.has("solo") && ctx.info.audiences.soloAudience) {
        const solo = ctx.target.audience("soloAudience");
        const noTeam = await ctx.call({
          op: "updateAudience",
          params: { audienceId: solo },
          as: ctx.as("solo"),
          json: { name: "Solo", isSharedWithTeam: true },
        });
        if (ok(noTeam))
          ctx.defer(() =>
            ctx.call({
              op: "updateAudience",
              params: { audienceId: solo },
              as: ctx.as("solo"),
              json: { name: "Solo", isSharedWithTeam: false },
            }),
          );
        ctx.expectCode(
          noTeam,
          400,
          "TEAM_REQUIRED",
          "audience/team-share-owner",
          "sharing with a team by an owner in no team",
        );
      }
    },
  },
);

export const followRules = check("domain/follow", ["audience/follow"], {
  needs: { roles: ["outsider"], audiences: ["public", "private"] },
  mutates: true,
  async run(ctx) {
    const pub = ctx.target.audience("public");
    // Following is a state, not a toggle: following again keeps it. The body is not shown by the
    // description; where it says `following`, it must say what was asked.
    const saysFollowing = (ex: Exchange, want: boolean, label: string) => {
      const said = ex.body?.data?.following ?? ex.body?.following;
      if (typeof said === "boolean")
        ctx.expect(said === want, "audience/follow", `${label} answered following: ${said}`, ex);
    };
    for (const label of ["following a public Audience", "following it again"]) {
      const f = await ctx.call({ op: "followAudience", params: { audienceId: pub }, as: ctx.as("outsider") });
      if (ctx.expectStatus(f, 200, "audience/follow", label)) saysFollowing(f, true, label);
    }
    const u = await ctx.call({ op: "unfollowAudience", params: { audienceId: pub }, as: ctx.as("outsider") });
    if (ctx.expectStatus(u, 200, "audience/follow", "unfollowing")) saysFollowing(u, false, "unfollowing");
    const u2 = await ctx.call({
      op: "unfollowAudience",
      params: { audienceId: pub },
      as: ctx.as("outsider"),
    });
    ctx.expectStatus(u2, 200, "audience/follow", "unfollowing again");
    const p = await ctx.call({
      op: "followAudience",
      params: { audienceId: ctx.target.audience("private") },
      as: ctx.as("outsider"),
    });
    ctx.expectStatus(p, 404, "audience/follow", "following a private Audience");
  },
});

export const audienceDelete = check("domain/audience-delete", ["audience/delete-owner-only"], {
  needs: { roles: ["admin", "publisher"], changeable: ["main"], audiences: ["public"] },
  mutates: true,
  async run(ctx) {
    const main = ctx.target.audience("main");
    const byAdmin = await ctx.call({
      op: "deleteAudience",
      params: { audienceId: main },
      as: ctx.as("admin"),
    });
    ctx.expectStatus(byAdmin, 404, "audience/delete-owner-only", "a direct admin deleting the Audience");
    const who = duplicator(ctx);
    if (!who) return ctx.inconclusive(NO_DUPLICATOR);
    const copy = await ctx.call({
      op: "duplicateAudience",
      params: { audienceId: who.audienceId },
      as: ctx.as(who.role),
      json: {},
    });
    ctx.requireStatus(copy, 201, "audience/delete-owner-only", `${who.role} copying an Audience it may edit`);
    const audienceId = copy.body.data.id as string;
    const del = await ctx.call({ op: "deleteAudience", params: { audienceId }, as: ctx.as(who.role) });
    if (!ctx.expectStatus(del, 204, "audience/delete-owner-only", "the owner deleting an Audience")) {
      deleteAudienceLater(ctx, audienceId, who.role);
      return;
    }
    const gone = await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as(who.role) });
    ctx.expect(
      gone.status === 404,
      "audience/delete-owner-only",
      `a deleted Audience still answers ${gone.status}`,
      gone,
    );
  },
});

export const membersPreview = check("domain/members-preview", ["audience/members-preview"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const read = (preview: boolean) =>
      ownerOnMain(ctx, "getAudience", preview ? { query: { members: "preview" } } : {});
    const [full, preview] = [await read(false), await read(true)];
    type Mind = Record<string, unknown> & { id: string };
    const minds = (ex: typeof full) => (ex.body?.data?.minds ?? []) as Mind[];
    const byId = new Map(minds(full).map((m) => [m.id, m]));
    ctx.expect(
      minds(preview).length === byId.size && minds(preview).every((m) => byId.has(m.id)),
      "audience/members-preview",
      `the preview lists ${minds(preview).length} members, the complete detail ${byId.size} (or others)`,
      preview,
    );
    for (const m of minds(preview)) {
      const reviewed = Object.keys(m).filter((k) => /reviewed/i.test(k));
      const extra = Object.keys(m).filter((k) => !(k in (byId.get(m.id) ?? {})));
      if (
        !ctx.expect(
          reviewed.length === 0,
          "audience/members-preview",
          `preview member ${m.id} carries ${reviewed.join(", ")}`,
          preview,
        )
      )
        break;
      if (
        !ctx.expect(
          extra.length === 0,
          "audience/members-preview",
          `preview member ${m.id} has ${extra.join(", ")}, which the complete profile lacks`,
          preview,
        )
      )
        break;
    }
  },
});
