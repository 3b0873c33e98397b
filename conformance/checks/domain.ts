/**
 * Domain rules from the API description that no schema states: secrets, orders, counts, roles and
 * visibility, redaction, facets, pagination arithmetic, the NDJSON stream, checkout and idempotent replays.
 */
import fc from "fast-check";
import { LIMITS } from "../../src/contract/limits.ts";
import type { CheckContext, CheckDef } from "../lib/context.ts";
import { validate } from "../lib/contract.ts";
import {
  deleteAudienceLater,
  deleteFormationLater,
  deleteKeyLater,
  duplicator,
  fresh,
  hypothesis,
  memberIds,
  ok,
  removeMemberLater,
} from "../lib/helpers.ts";
import type { Exchange } from "../lib/http.ts";
import type { Role } from "../lib/target.ts";
import { recalibrationStatus } from "./recalibration.ts";

const sortedDesc = (xs: string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) >= x);
const sortedAsc = (xs: string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) <= x);

export const identity: CheckDef = {
  name: "domain/identity",
  title: "GET /auth/me names the key's owner",
  needs: { roles: ["owner"], users: ["owner"] },
  async run(ctx) {
    const ex = await ctx.call({ op: "getMe", as: ctx.as("owner") });
    ctx.expect(
      ex.body?.id === ctx.target.user("owner"),
      "API description: GET /auth/me returns { id }: the user ID of the key owner",
      `id is ${JSON.stringify(ex.body?.id)}`,
      ex,
    );
  },
};

export const keySecrets: CheckDef = {
  name: "domain/api-key-secrets",
  title:
    "a new key's secret is returned once, works at once, never appears in listings; listings newest first",
  needs: { roles: ["owner"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description: the raw key is returned only once, in the creation response; listings never return key values; GET /api-keys ordered by createdAt descending";
    const created = await ctx.call({
      op: "createApiKey",
      as: ctx.as("owner"),
      json: { name: fresh("secret-check") },
    });
    if (!ctx.expect(created.status === 201, rule, `create answered ${created.status}`, created)) return;
    const { id, key } = created.body ?? {};
    if (typeof id === "string") deleteKeyLater(ctx, id);
    if (
      !ctx.expect(
        typeof key === "string" && key.startsWith("service_"),
        rule,
        "the creation response has no service_ key",
        created,
      )
    )
      return;
    const me = await ctx.call({ op: "getMe", as: { key, label: "new" } });
    ctx.expect(
      me.status === 200,
      "API description: keys authenticate as soon as they are created",
      `the new key answered ${me.status}`,
      me,
    );
    for (const role of ["owner", "teammate"] as Role[]) {
      if (!ctx.target.has(role)) continue;
      const list = await ctx.call({ op: "listApiKeys", as: ctx.as(role) });
      if (list.status !== 200) continue;
      ctx.expect(
        !list.text.includes(key),
        rule,
        `the secret of the new key appears in ${role}'s listing`,
        list,
      );
      const items = Array.isArray(list.body) ? list.body : [];
      ctx.expect(
        !items.some((k: Record<string, unknown>) => "key" in k),
        rule,
        "a listed key carries a `key` field",
        list,
      );
      ctx.expect(
        sortedDesc(items.map((k: { createdAt: string }) => k.createdAt)),
        rule,
        "the listing is not ordered by createdAt descending",
        list,
      );
      if (role === "owner")
        ctx.expect(
          items.some((k: { id: string }) => k.id === id),
          rule,
          "the new key is not listed",
          list,
        );
      else
        ctx.expect(
          !items.some((k: { id: string }) => k.id === id),
          rule,
          "another account's listing shows the owner's new key",
          list,
        );
    }
  },
};

export const keyAccess: CheckDef = {
  name: "domain/api-key-access",
  title:
    "key management: 403 without an active subscription, 403 creating on an SSO account, 404 for another account's key",
  needs: { roles: ["owner", "outsider", "sso", "teammate"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, Authentication 6: key management requires an active Premium or Team subscription (403 `Forbidden`); SSO-linked accounts cannot create keys (403); DELETE 404 `API key not found` for no such key on the account";
    for (const spec of [{ op: "listApiKeys" }, { op: "createApiKey", json: {} }] as const) {
      const ex = await ctx.call({ ...spec, as: ctx.as("outsider") });
      if (ok(ex) && ex.body?.id) deleteKeyLater(ctx, ex.body.id, "outsider");
      ctx.expect(
        ex.status === 403,
        rule,
        `${spec.op} without a subscription answered ${ex.status}, not 403`,
        ex,
      );
    }
    const sso = await ctx.call({ op: "createApiKey", as: ctx.as("sso"), json: {} });
    if (ok(sso) && sso.body?.id) deleteKeyLater(ctx, sso.body.id, "sso");
    ctx.expect(
      sso.status === 403,
      rule,
      `createApiKey on an SSO-linked account answered ${sso.status}, not 403`,
      sso,
    );
    const theirs = await ctx.call({
      op: "createApiKey",
      as: ctx.as("teammate"),
      json: { name: fresh("not-yours") },
    });
    if (theirs.status !== 201) return;
    deleteKeyLater(ctx, theirs.body.id, "teammate");
    const del = await ctx.call({
      op: "deleteApiKey",
      params: { keyId: theirs.body.id },
      as: ctx.as("owner"),
    });
    ctx.expect(
      del.status === 404,
      rule,
      `deleting another account's key answered ${del.status}, not 404`,
      del,
    );
    const still = await ctx.call({ op: "getMe", as: { key: theirs.body.key, label: "teammate-new" } });
    ctx.expect(
      still.status === 200,
      rule,
      "another account's key stopped working after a refused delete",
      still,
    );
  },
};

export const selfDelete: CheckDef = {
  name: "domain/api-key-self-delete",
  title: "deleting the key used for the request is allowed and it stops authenticating immediately",
  needs: { roles: ["owner"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description: deleting the key used for the request is allowed; the key stops authenticating immediately";
    const created = await ctx.call({
      op: "createApiKey",
      as: ctx.as("owner"),
      json: { name: fresh("self-delete") },
    });
    if (created.status !== 201) return;
    const self = { key: created.body.key as string, label: "new" };
    const del = await ctx.call({ op: "deleteApiKey", params: { keyId: created.body.id }, as: self });
    if (!ok(del)) deleteKeyLater(ctx, created.body.id);
    ctx.expect(
      del.status === 204 && del.text === "",
      rule,
      `self-delete answered ${del.status} with ${del.text.length} body bytes, not 204 empty`,
      del,
    );
    const after = await ctx.call({ op: "getMe", as: self });
    ctx.expect(after.status === 401, rule, `the deleted key still answered ${after.status}`, after);
    const again = await ctx.call({
      op: "deleteApiKey",
      params: { keyId: created.body.id },
      as: ctx.as("owner"),
    });
    ctx.expect(
      again.status === 404,
      "API description: DELETE 404 `API key not found`",
      `deleting it again answered ${again.status}`,
      again,
    );
  },
};

/** Who sees what of `main` and `private` and `public`: role, sharing fields, 404 where hidden. */
export const visibility: CheckDef = {
  name: "domain/audience-visibility",
  title:
    "Audience detail by role: currentMemberRole, sharing fields only for collaborators, 404 where not viewable",
  needs: { roles: ["owner", "outsider"], audiences: ["main", "private", "public"] },
  async run(ctx) {
    const rule =
      "API description, AudienceDetail: currentMemberRole (`public_viewer` for public and Study-cascade viewers); isSharedWithTeam, isLinkSharingEnabled, publicShareId returned only to collaborators; GET readable by owner, direct members, team members when team-shared, anyone when public, Study members";
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
      const ex = await ctx.call({
        op: "getAudience",
        params: { audienceId: ctx.target.audience(handle) },
        as: ctx.as(role),
        query: { members: "preview" },
      });
      if (expected === null) {
        ctx.expect(ex.status === 404, rule, `${role} reading ${handle} answered ${ex.status}, not 404`, ex);
        continue;
      }
      if (
        !ctx.expect(ex.status === 200, rule, `${role} reading ${handle} answered ${ex.status}, not 200`, ex)
      )
        continue;
      const d = ex.body?.data ?? {};
      ctx.expect(
        d.currentMemberRole === expected,
        rule,
        `${role} on ${handle}: currentMemberRole ${JSON.stringify(d.currentMemberRole)}, not ${expected}`,
        ex,
      );
      const sharing = ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"].filter((k) => k in d);
      if (expected === "public_viewer")
        ctx.expect(sharing.length === 0, rule, `${role} (public viewer) sees ${sharing.join(", ")}`, ex);
      else
        ctx.expect(
          sharing.length === 3,
          rule,
          `${role} (collaborator) does not see all sharing fields (sees ${sharing.join(", ") || "none"})`,
          ex,
        );
    }
  },
};

export const fileRedaction: CheckDef = {
  name: "domain/file-url-redaction",
  title: "uploaded-file URLs reach collaborators but are redacted for public and Study-cascade viewers",
  needs: { roles: ["owner", "studyViewer"], audiences: ["main"] },
  async run(ctx) {
    const rule =
      "API description: for public and Study-cascade viewers, uploaded-file URLs in sources and grounding.sources are redacted";
    const audienceId = ctx.target.audience("main");
    const own = await ctx.call({
      op: "getAudience",
      params: { audienceId },
      as: ctx.as("owner"),
      query: { members: "preview" },
    });
    const urls = ((own.body?.data?.sources?.files ?? []) as { url?: string | null }[])
      .map((f) => f.url)
      .filter((u): u is string => typeof u === "string" && u.length > 0);
    if (urls.length === 0) return;
    const viewer = await ctx.call({
      op: "getAudience",
      params: { audienceId },
      as: ctx.as("studyViewer"),
      query: { members: "preview" },
    });
    for (const url of urls)
      ctx.expect(
        !viewer.text.includes(url),
        rule,
        `a Study-cascade viewer sees the uploaded file URL ${url}`,
        viewer,
      );
  },
};

export const updateRules: CheckDef = {
  name: "domain/audience-update",
  title:
    "PUT: name trimmed, sharing applied only as booleans, isLinkSharingEnabled echoed, owner-only team sharing, 404 for viewers",
  needs: { roles: ["owner", "member", "outsider"], changeable: ["main"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, PUT audience: name required and trimmed; isPublic and isSharedWithTeam apply only when sent as booleans; isLinkSharingEnabled cannot be changed here and is echoed; only the owner may change isSharedWithTeam (403 TEAM_SHARE_OWNER_ONLY); 404 for no edit access";
    const audienceId = ctx.target.audience("main");
    const before = (
      await ctx.call({
        op: "getAudience",
        params: { audienceId },
        as: ctx.as("owner"),
        query: { members: "preview" },
      })
    ).body?.data;
    if (!before) return;
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
    if (ctx.expect(renamed.status === 200, rule, `a valid rename answered ${renamed.status}`, renamed)) {
      const d = renamed.body?.data ?? {};
      ctx.expect(
        d.name === `${before.name} (conformance)`,
        rule,
        `name ${JSON.stringify(d.name)} was not trimmed`,
        renamed,
      );
      ctx.expect(
        d.isPublic === before.isPublic,
        rule,
        "isPublic changed although it was not sent as a boolean",
        renamed,
      );
      ctx.expect(
        d.isLinkSharingEnabled === before.isLinkSharingEnabled,
        rule,
        "isLinkSharingEnabled changed through PUT",
        renamed,
      );
      ctx.expect(d.currentMemberRole === "owner", rule, `currentMemberRole ${d.currentMemberRole}`, renamed);
    }
    const byMember = await put("member", { name: before.name, isSharedWithTeam: !before.isSharedWithTeam });
    ctx.expect(
      byMember.status === 403 && byMember.body?.data?.code === "TEAM_SHARE_OWNER_ONLY",
      rule,
      `a member changing team sharing answered ${byMember.status} ${byMember.body?.data?.code ?? ""}`,
      byMember,
    );
    const byOutsider = await put("outsider", { name: "Not yours" });
    ctx.expect(
      byOutsider.status === 404,
      rule,
      `an outsider's PUT answered ${byOutsider.status}, not 404`,
      byOutsider,
    );
    if (ctx.target.has("outsider") && ctx.info.audiences.public) {
      const byViewer = await ctx.call({
        op: "updateAudience",
        params: { audienceId: ctx.target.audience("public") },
        as: ctx.as("outsider"),
        json: { name: "Not yours" },
      });
      ctx.expect(
        byViewer.status === 404,
        rule,
        `a public viewer's PUT answered ${byViewer.status}, not 404`,
        byViewer,
      );
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
      ctx.expect(
        noTeam.status === 400 && noTeam.body?.data?.code === "TEAM_REQUIRED",
        rule,
        `sharing with a team by an owner in no team answered ${noTeam.status} ${noTeam.body?.data?.code ?? ""}`,
        noTeam,
      );
    }
  },
};

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

export const membersRules: CheckDef = {
  name: "domain/members",
  title:
    "add members: owner only, mindId wins over mindIds, `added` counts distinct IDs, inaccessible Minds add nothing",
  needs: {
    roles: ["owner", "admin"],
    changeable: ["main"],
    minds: ["ownLoose", "foreignMind", "mainMember"],
  },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, members: owner only (others 404); when both are present mindId wins and mindIds is ignored; `added` is the number of distinct IDs in the request; a Mind not owned and not public gives 404 and nothing is added";
    const audienceId = ctx.target.audience("main");
    const loose = ctx.target.mind("ownLoose");
    const foreign = ctx.target.mind("foreignMind");
    const member = ctx.target.mind("mainMember");
    const add = (json: unknown, role: Role = "owner") =>
      ctx.call({ op: "addMembers", params: { audienceId }, as: ctx.as(role), json });
    const present = new Set(await memberIds(ctx, audienceId));
    if (present.has(loose))
      await ctx.call({ op: "removeMember", params: { audienceId, mindId: loose }, as: ctx.as("owner") });
    removeMemberLater(ctx, audienceId, loose);
    const atomic = await add({ mindIds: [loose, foreign] });
    ctx.expect(
      atomic.status === 404,
      rule,
      `a request with an inaccessible Mind answered ${atomic.status}, not 404`,
      atomic,
    );
    ctx.expect(
      !(await memberIds(ctx, audienceId)).includes(loose),
      rule,
      "a refused request added its accessible Mind",
      atomic,
    );
    const byAdmin = await add({ mindId: loose }, "admin");
    ctx.expect(
      byAdmin.status === 404,
      rule,
      `a direct admin adding members answered ${byAdmin.status}, not 404`,
      byAdmin,
    );
    const wins = await add({ mindId: loose, mindIds: [foreign] });
    if (
      ctx.expect(
        wins.status === 200,
        rule,
        `mindId with an inaccessible mindIds answered ${wins.status}, not 200`,
        wins,
      )
    )
      ctx.expect(
        wins.body?.data?.added === 1,
        rule,
        `added ${JSON.stringify(wins.body?.data?.added)}, not 1`,
        wins,
      );
    const after = await memberIds(ctx, audienceId);
    ctx.expect(after.includes(loose) && !after.includes(foreign), rule, "mindId was not the one added", wins);
    const distinct = await add({
      mindIds: [member, loose, member, loose.toUpperCase() === loose ? loose : loose],
    });
    if (ctx.expect(distinct.status === 200, rule, `re-adding members answered ${distinct.status}`, distinct))
      ctx.expect(
        distinct.body?.data?.added === 2,
        rule,
        `2 distinct IDs (4 sent, all already members) reported added ${JSON.stringify(distinct.body?.data?.added)}`,
        distinct,
      );
    const del = await ctx.call({
      op: "removeMember",
      params: { audienceId, mindId: loose },
      as: ctx.as("owner"),
    });
    ctx.expect(del.status === 204, rule, `removing a member answered ${del.status}`, del);
    const again = await ctx.call({
      op: "removeMember",
      params: { audienceId, mindId: loose },
      as: ctx.as("owner"),
    });
    ctx.expect(
      again.status === 204,
      "API description: removing a non-member still returns 204",
      `answered ${again.status}`,
      again,
    );
    ctx.expect(
      !(await memberIds(ctx, audienceId)).includes(loose),
      rule,
      "the removed Mind is still a member",
      del,
    );
    if (present.has(loose)) await add({ mindId: loose });
  },
};

export const planLimit: CheckDef = {
  name: "domain/plan-limit",
  title: "adding to an Audience at its member cap gives 403 PlanLimitError with current >= limit",
  needs: { roles: ["owner"], changeable: ["atCap"], minds: ["ownLoose"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, Errors: plan-limit 403 data is { code: PLAN_LIMIT, limitType, currentPlan, limit, current }; the Individual plan's statusMessage reads `Individual plan limit reached`";
    const audienceId = ctx.target.audience("atCap");
    const mind = ctx.target.mind("ownLoose");
    const ex = await ctx.call({
      op: "addMembers",
      params: { audienceId },
      as: ctx.as("owner"),
      json: { mindId: mind },
    });
    if (ok(ex)) removeMemberLater(ctx, audienceId, mind);
    if (!ctx.expect(ex.status === 403, rule, `adding past the member cap answered ${ex.status}, not 403`, ex))
      return;
    const d = ex.body?.data ?? {};
    ctx.expect(
      d.code === "PLAN_LIMIT" && d.limitType === "groupMembers",
      rule,
      `data.code ${d.code}, limitType ${d.limitType} (the member cap is groupMembers)`,
      ex,
    );
    ctx.expect(
      Number.isInteger(d.current) && Number.isInteger(d.limit) && d.current >= d.limit,
      rule,
      `current ${d.current} is below limit ${d.limit} at the cap`,
      ex,
    );
    const plan = ctx.info.plans.owner;
    if (plan)
      ctx.expect(
        d.currentPlan === plan,
        rule,
        `currentPlan ${d.currentPlan}, the owner's plan is ${plan}`,
        ex,
      );
    if (d.currentPlan === "premium")
      ctx.expect(
        ex.body?.statusMessage === "Individual plan limit reached",
        rule,
        `statusMessage ${JSON.stringify(ex.body?.statusMessage)}`,
        ex,
      );
  },
};

export const facets: CheckDef = {
  name: "domain/filter-facets",
  title:
    "filter attributes: mindIds sorted and counted by matchCount; facets count the other attributes' selection",
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const rule =
      "API description, filter-attributes: mindIds sorted by ID; values of one attribute are alternatives (OR), attributes combine (AND), null selects Minds without a value; each facet counts the Minds matching every other attribute's selection";
    const audienceId = ctx.target.audience("main");
    const get = (filters?: unknown) =>
      ctx.call({
        op: "getFilterAttributes",
        params: { audienceId },
        as: ctx.as("owner"),
        query: filters === undefined ? {} : { filters: JSON.stringify(filters) },
      });
    const base = await get();
    const data = base.body?.data;
    if (!data || data.truncated) return;
    checkShape(ctx, base, rule);
    // Attributes with one value per Mind: their facet (plus unknown) partitions the matches exactly.
    const single = (data.facets as Facet[]).filter(
      (f) =>
        f.values.length < 200 &&
        f.values.reduce((s, v) => s + v.count, 0) + f.unknownCount === data.matchCount,
    );
    if (single.length === 0) return;
    const selection = fc
      .subarray(single, { minLength: 1, maxLength: 2 })
      .chain((fs) =>
        fc.tuple(
          ...fs.map((f) =>
            fc.tuple(
              fc.constant(f),
              fc.subarray([...f.values.map((v) => v.value), null], { minLength: 1, maxLength: 3 }),
            ),
          ),
        ),
      );
    await ctx.property(
      "selections of facet values",
      selection,
      async (picks) => {
        const filters = Object.fromEntries(
          picks.map(([f, vals]) => [
            f.key,
            vals.includes(null) && vals.length === 1 ? null : vals.filter((v) => v !== null),
          ]),
        );
        const ex = await get(filters);
        if (!ctx.expect(ex.status === 200, rule, `a selection of existing values answered ${ex.status}`, ex))
          return;
        checkShape(ctx, ex, rule);
        const d = ex.body.data;
        for (const [f] of picks) {
          const sel = filters[f.key] as string[] | null;
          const facet = (d.facets as Facet[]).find((x) => x.key === f.key);
          if (!facet) continue;
          const counted =
            sel === null
              ? facet.unknownCount
              : facet.values.filter((v) => sel.includes(v.value)).reduce((s, v) => s + v.count, 0);
          ctx.expect(
            counted === d.matchCount,
            rule,
            `facet ${f.key} counts ${counted} for the selected values, matchCount is ${d.matchCount}`,
            ex,
          );
        }
      },
      { numRuns: 8 },
    );
  },
};

interface Facet {
  key: string;
  values: { value: string; count: number }[];
  unknownCount: number;
}

function checkShape(ctx: CheckContext, ex: Exchange, rule: string): void {
  const d = ex.body?.data;
  if (!d) return;
  ctx.expect(sortedAsc(d.mindIds), rule, "mindIds are not sorted by ID", ex);
  ctx.expect(new Set(d.mindIds).size === d.mindIds.length, rule, "mindIds repeat an ID", ex);
  if (!d.truncated)
    ctx.expect(
      d.mindIds.length === d.matchCount,
      rule,
      `matchCount ${d.matchCount} but ${d.mindIds.length} mindIds`,
      ex,
    );
  ctx.expect(
    d.matchCount <= d.totalMinds && d.attributedMinds <= d.totalMinds,
    rule,
    "matchCount or attributedMinds exceed totalMinds",
    ex,
  );
}

export const largeAudience: CheckDef = {
  name: "domain/filter-truncation",
  title: `filter attributes read at most ${LIMITS.mindsRead} Minds; \`truncated\` says when an Audience has more`,
  needs: { roles: ["outsider"], audiences: ["large", "main"] },
  async run(ctx) {
    const rule = `API description: at most ${LIMITS.mindsRead} Minds are read per request; truncated is true for a larger Audience`;
    for (const handle of ["large", "main"]) {
      const audienceId = ctx.target.audience(handle);
      const role: Role = handle === "large" ? "outsider" : "owner";
      if (!ctx.target.has(role)) continue;
      const ex = await ctx.call({ op: "getFilterAttributes", params: { audienceId }, as: ctx.as(role) });
      const d = ex.body?.data;
      if (!d) continue;
      ctx.expect(
        d.truncated === d.totalMinds > LIMITS.mindsRead,
        rule,
        `totalMinds ${d.totalMinds} with truncated ${d.truncated}`,
        ex,
      );
      ctx.expect(d.mindIds.length <= 5000, rule, `${d.mindIds.length} mindIds returned`, ex);
      ctx.coverage.limit("getFilterAttributes:x-max-minds-read");
    }
  },
};

export const formationPages: CheckDef = {
  name: "domain/formation-pagination",
  title:
    "Formation pages: total, hasMore and nextOffset agree with the rows; walking the pages lists each Formation once",
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const rule =
      "API description: pagination { total, limit, offset, hasMore, nextOffset (integer or null) }; follow nextOffset while hasMore is true; newest first (ID breaks ties)";
    const audienceId = ctx.target.audience("main");
    const list = (limit: number, offset: number) =>
      ctx.call({
        op: "listFormations",
        params: { audienceId },
        as: ctx.as("owner"),
        query: { limit, offset },
      });
    const first = await list(100, 0);
    const total = first.body?.pagination?.total;
    if (typeof total !== "number") return;
    const rows = (first.body.data ?? []) as { createdAt?: string; id: string }[];
    if (rows.every((r) => typeof r.createdAt === "string"))
      ctx.expect(
        rows.every(
          (r, i) =>
            i === 0 || ((rows[i - 1] as { createdAt: string }).createdAt ?? "") >= (r.createdAt ?? ""),
        ),
        rule,
        "Formations are not newest first",
        first,
      );
    await ctx.property(
      "page arithmetic",
      fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: total + 3 })),
      async ([limit, offset]) => {
        const ex = await list(limit, offset);
        const p = ex.body?.pagination;
        const n = (ex.body?.data ?? []).length;
        if (!p) return;
        const expectedRows = Math.max(0, Math.min(limit, p.total - offset));
        const hasMore = offset + n < p.total;
        const problems = [
          p.limit !== limit && `limit ${p.limit}`,
          p.offset !== offset && `offset ${p.offset}`,
          n !== expectedRows && `${n} rows (expected ${expectedRows})`,
          p.hasMore !== hasMore && `hasMore ${p.hasMore}`,
          p.nextOffset !== (hasMore ? offset + n : null) && `nextOffset ${p.nextOffset}`,
        ].filter(Boolean);
        ctx.expect(
          problems.length === 0,
          rule,
          `limit ${limit} offset ${offset} of ${p.total}: ${problems.join(", ")}`,
          ex,
        );
      },
      { numRuns: 8 },
    );
    const seen: string[] = [];
    let offset: number | null = 0;
    for (let i = 0; offset !== null && i < 50; i++) {
      const ex: Exchange = await list(2, offset);
      seen.push(...((ex.body?.data ?? []) as { id: string }[]).map((r) => r.id));
      offset = ex.body?.pagination?.hasMore ? ex.body.pagination.nextOffset : null;
    }
    ctx.expect(
      seen.length === total && new Set(seen).size === total,
      rule,
      `walking pages of 2 gave ${seen.length} rows (${new Set(seen).size} distinct) for total ${total}`,
      first,
    );
  },
};

export const formationVisibility: CheckDef = {
  name: "domain/formation-visibility",
  title: "a private Formation is visible and mutable only by its creator (404 for others)",
  needs: { roles: ["owner", "teammate"], formations: ["teammatePrivate"] },
  async run(ctx) {
    const rule =
      "API description: Formation GET visible to any Audience viewer for shared Formations and to the creator for private ones; delete and recompute otherwise 404";
    const f = ctx.target.formation("teammatePrivate");
    const params = { audienceId: ctx.target.audience(f.audience), formationId: f.id };
    const mine = await ctx.call({ op: "getFormation", params, as: ctx.as("teammate") });
    ctx.expect(mine.status === 200, rule, `the creator reading it answered ${mine.status}`, mine);
    const theirs = await ctx.call({ op: "getFormation", params, as: ctx.as("owner") });
    ctx.expect(
      theirs.status === 404,
      rule,
      `another collaborator reading it answered ${theirs.status}, not 404`,
      theirs,
    );
    const listed = await ctx.call({
      op: "listFormations",
      params: { audienceId: params.audienceId },
      as: ctx.as("owner"),
    });
    ctx.expect(
      !listed.text.includes(f.id),
      rule,
      "another collaborator's listing shows the private Formation",
      listed,
    );
    if (ctx.info.readOnly) return;
    const del = await ctx.call({ op: "deleteFormation", params, as: ctx.as("owner") });
    ctx.expect(
      del.status === 404,
      rule,
      `another collaborator deleting it answered ${del.status}, not 404`,
      del,
    );
  },
};

const NDJSON_RULE =
  "API description, Events: application/x-ndjson, one JSON object per line: meta first, status second, subgroups (or error) third, done last, always; Accept application/json gives one document; no Accept preference gives the stream; nothing acceptable is 406";

export const previewStream: CheckDef = {
  name: "domain/preview-stream",
  title:
    "preview: NDJSON framing and order, JSON mode, 406 negotiation, meta counts, proposals satisfy the creation rules",
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const size = (await memberIds(ctx, audienceId)).length;
    const preview = (accept: string | null, json: unknown = { userInput: "Split them by country" }) =>
      ctx.call({
        op: "previewFormation",
        params: { audienceId },
        as: ctx.as("owner"),
        json,
        headers: accept === null ? {} : { accept },
        timeoutMs: 20_000,
      });
    for (const accept of [
      "application/x-ndjson",
      null,
      "*/*",
      "application/json;q=0.1, application/x-ndjson",
    ]) {
      const ex = await preview(accept);
      checkStream(ctx, ex, size, `Accept ${accept ?? "(none)"}`);
    }
    for (const accept of ["application/json", "application/x-ndjson;q=0.2, application/json"]) {
      const ex = await preview(accept);
      const media = (ex.header("content-type") ?? "").split(";")[0];
      if (
        !ctx.expect(
          ex.status === 200 && media === "application/json",
          NDJSON_RULE,
          `Accept ${accept}: ${ex.status} ${media}`,
          ex,
        )
      )
        continue;
      const d = ex.body?.data ?? {};
      ctx.expect(ex.body?.success === true, NDJSON_RULE, "success is not true", ex);
      checkMeta(ctx, ex, d, size);
      ctx.coverage.limit("previewFormation:x-soft-warn-from");
      ctx.coverage.limit("previewFormation:x-hard-cap");
      ctx.expect(
        validate("#/components/schemas/FormationHypothesis", d.hypothesis).length === 0,
        "API description: returned proposals satisfy the creation input rules",
        "the proposal breaks FormationHypothesis",
        ex,
      );
    }
    for (const accept of ["text/html", "application/xml", "application/json;q=0, application/x-ndjson;q=0"]) {
      const ex = await preview(accept);
      ctx.expect(ex.status === 406, NDJSON_RULE, `Accept ${accept} answered ${ex.status}, not 406`, ex);
    }
  },
};

function checkMeta(ctx: CheckContext, ex: Exchange, d: Record<string, unknown>, size: number): void {
  const rule = `API description: meta { memberCount, softWarn (true from ${LIMITS.previewSoftWarnFrom} members), hardCapExceeded (true above ${LIMITS.previewHardCap} members) }`;
  ctx.expect(
    d.memberCount === size,
    rule,
    `memberCount ${d.memberCount}, the Audience has ${size} members`,
    ex,
  );
  ctx.expect(
    d.softWarn === size >= LIMITS.previewSoftWarnFrom,
    rule,
    `softWarn ${d.softWarn} for ${size} members`,
    ex,
  );
  ctx.expect(
    d.hardCapExceeded === size > LIMITS.previewHardCap,
    rule,
    `hardCapExceeded ${d.hardCapExceeded} for ${size} members`,
    ex,
  );
}

function checkStream(ctx: CheckContext, ex: Exchange, size: number, label: string): void {
  const media = (ex.header("content-type") ?? "").split(";")[0];
  if (
    !ctx.expect(
      ex.status === 200 && media === "application/x-ndjson",
      NDJSON_RULE,
      `${label}: ${ex.status} ${media}, not a 200 stream`,
      ex,
    )
  )
    return;
  const lines = ex.text.split("\n").filter((l) => l.trim() !== "");
  const events: { type?: string; data?: Record<string, unknown> }[] = [];
  for (const line of lines) {
    try {
      events.push(JSON.parse(line));
    } catch {
      ctx.expect(false, NDJSON_RULE, `${label}: a line is not JSON: ${line.slice(0, 80)}`, ex);
      return;
    }
  }
  for (const e of events)
    ctx.expect(
      validate("#/components/schemas/PreviewEvent", e).length === 0,
      NDJSON_RULE,
      `${label}: event ${JSON.stringify(e).slice(0, 120)} breaks PreviewEvent`,
      ex,
    );
  const types = events.map((e) => e.type);
  const shape = types.join(",");
  const okOrder = shape === "meta,status,subgroups,done" || shape === "meta,status,error,done";
  ctx.expect(okOrder, NDJSON_RULE, `${label}: events ${shape}`, ex);
  ctx.expect(
    ex.text.endsWith("\n") || lines.length === 0 || ex.text.trimEnd() === ex.text,
    NDJSON_RULE,
    `${label}: framing`,
    ex,
  );
  const meta = events.find((e) => e.type === "meta")?.data;
  if (meta) checkMeta(ctx, ex, meta, size);
}

export const largePreview: CheckDef = {
  name: "domain/preview-hard-cap",
  title: `preview of an Audience over ${LIMITS.previewHardCap} members reports hardCapExceeded`,
  needs: { roles: ["outsider"], audiences: ["large"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("large");
    const det = await ctx.call({ op: "getFilterAttributes", params: { audienceId }, as: ctx.as("outsider") });
    const size = det.body?.data?.totalMinds;
    if (typeof size !== "number") return;
    const ex = await ctx.call({
      op: "previewFormation",
      params: { audienceId },
      as: ctx.as("outsider"),
      headers: { accept: "application/json" },
      json: {},
      timeoutMs: 30_000,
    });
    if (ex.status !== 200) return;
    checkMeta(ctx, ex, ex.body?.data ?? {}, size);
  },
};

export const progressRules: CheckDef = {
  name: "domain/progress",
  title:
    "progress: audienceId echoed, readiness.failed always 0, beingRepaired only with trainingStatus queued",
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const rule =
      "API description, progress: readiness.failed is always 0 (members being retrained count in training); beingRepaired true means trainingStatus queued; total counts the members";
    const audienceId = ctx.target.audience("main");
    const ex = await ctx.call({ op: "getAudienceProgress", params: { audienceId }, as: ctx.as("owner") });
    const d = ex.body?.data;
    if (!d) return;
    ctx.expect(d.audienceId === audienceId, rule, `audienceId ${d.audienceId}`, ex);
    ctx.expect(d.readiness?.failed === 0, rule, `readiness.failed is ${d.readiness?.failed}`, ex);
    ctx.expect(
      d.readiness?.total === d.members?.length,
      rule,
      `readiness.total ${d.readiness?.total} for ${d.members?.length} members`,
      ex,
    );
    for (const m of d.members ?? [])
      if (m.update?.beingRepaired === true)
        ctx.expect(
          m.update.trainingStatus === "queued",
          rule,
          `a member being repaired has trainingStatus ${m.update.trainingStatus}`,
          ex,
        );
  },
};

export const exportsRules: CheckDef = {
  name: "domain/exports",
  title:
    "exports: formats by kind, 409 VALIDATION_REPORT_UNAVAILABLE and status `unavailable` without a scored validation",
  needs: { roles: ["owner"], audiences: ["main", "private"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, exports: brief offers pdf, md, docx, pptx; validation_report offers pdf, md, docx, xlsx (400 for a format the kind does not offer); 409 VALIDATION_REPORT_UNAVAILABLE and export-status `unavailable` without a scored validation";
    const main = ctx.target.audience("main");
    const priv = ctx.target.audience("private");
    for (const [kind, format, expected] of [
      ["brief", "xlsx", 400],
      ["validation_report", "pptx", 400],
      ["brief", "md", 200],
    ] as const) {
      const ex = await ctx.call({
        op: "exportAudience",
        params: { audienceId: main },
        as: ctx.as("owner"),
        json: { kind, format },
      });
      ctx.expect(
        ex.status === expected,
        rule,
        `${kind} as ${format} answered ${ex.status}, not ${expected}`,
        ex,
      );
    }
    const none = await ctx.call({
      op: "exportAudience",
      params: { audienceId: priv },
      as: ctx.as("owner"),
      json: { kind: "validation_report", format: "pdf" },
    });
    ctx.expect(
      none.status === 409 && none.body?.data?.code === "VALIDATION_REPORT_UNAVAILABLE",
      rule,
      `a validation report without a scored validation answered ${none.status} ${none.body?.data?.code ?? ""}`,
      none,
    );
    const status = await ctx.call({
      op: "getExportStatus",
      params: { audienceId: priv },
      as: ctx.as("owner"),
      query: { kind: "validation_report" },
    });
    ctx.expect(
      status.status === 200 && status.body?.data?.status === "unavailable",
      rule,
      `export-status answered ${status.status} with status ${JSON.stringify(status.body?.data?.status)}`,
      status,
    );
  },
};

export const followRules: CheckDef = {
  name: "domain/follow",
  title: "follow: public Audiences only (404 otherwise); unfollow always 200",
  needs: { roles: ["outsider"], audiences: ["public", "private"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description: POST follow 200 followed, 404 public Audience not found; DELETE follow 200 unfollowed";
    const pub = ctx.target.audience("public");
    const f = await ctx.call({ op: "followAudience", params: { audienceId: pub }, as: ctx.as("outsider") });
    ctx.expect(f.status === 200, rule, `following a public Audience answered ${f.status}`, f);
    const u = await ctx.call({ op: "unfollowAudience", params: { audienceId: pub }, as: ctx.as("outsider") });
    ctx.expect(u.status === 200, rule, `unfollowing answered ${u.status}`, u);
    const u2 = await ctx.call({
      op: "unfollowAudience",
      params: { audienceId: pub },
      as: ctx.as("outsider"),
    });
    ctx.expect(u2.status === 200, rule, `unfollowing again answered ${u2.status}`, u2);
    const p = await ctx.call({
      op: "followAudience",
      params: { audienceId: ctx.target.audience("private") },
      as: ctx.as("outsider"),
    });
    ctx.expect(p.status === 404, rule, `following a private Audience answered ${p.status}, not 404`, p);
  },
};

export const duplicateReplay: CheckDef = {
  name: "domain/duplicate-replay",
  title:
    "duplicate: 201 a new private copy, 200 the same copy on replay, a new key a new copy; public viewers get 403",
  needs: { roles: ["publisher"], audiences: ["public"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, duplicate: 201 new copy; 200 idempotent replay of the same copy; the duplicate is private; 403 when the caller cannot edit";
    const who = duplicator(ctx);
    if (!who) return;
    const audienceId = ctx.target.audience(who.audience);
    const dup = async (key: string, role: Role = who.role) => {
      const ex = await ctx.call({
        op: "duplicateAudience",
        params: { audienceId },
        as: ctx.as(role),
        json: {},
        headers: { "x-service-idempotency-key": key },
      });
      if (ok(ex) && ex.body?.data?.id) deleteAudienceLater(ctx, ex.body.data.id, role);
      return ex;
    };
    const key = fresh("replay");
    const a = await dup(key);
    const b = await dup(key);
    const c = await dup(fresh("other"));
    if (
      ctx.expect(
        a.status === 201 && b.status === 200 && c.status === 201,
        rule,
        `answers ${a.status}, ${b.status} (replay), ${c.status} (new key)`,
        b,
      )
    ) {
      ctx.expect(a.body.data.id === b.body.data.id, rule, "the replay names another copy", b);
      ctx.expect(a.body.data.id !== c.body.data.id, rule, "a new key returned the earlier copy", c);
    }
    if (a.status === 201) {
      const copy = await ctx.call({
        op: "getAudience",
        params: { audienceId: a.body.data.id },
        as: ctx.as(who.role),
        query: { members: "preview" },
      });
      ctx.expect(copy.body?.data?.isPublic === false, rule, "the copy is public", copy);
      if (ctx.target.has("outsider")) {
        const peek = await ctx.call({
          op: "getAudience",
          params: { audienceId: a.body.data.id },
          as: ctx.as("outsider"),
        });
        ctx.expect(peek.status === 404, rule, `an outsider reads the private copy (${peek.status})`, peek);
      }
    }
    if (who.audience === "public" && ctx.target.has("outsider")) {
      const viewer = await dup(fresh("viewer"), "outsider");
      ctx.expect(
        viewer.status === 403,
        rule,
        `a public viewer duplicating answered ${viewer.status}, not 403`,
        viewer,
      );
    }
  },
};

const ACP_RULE = `API description, hosted checkout: Idempotency-Key required (max ${LIMITS.acpIdempotencyKey}, ^[a-zA-Z0-9_-]+$); API-Version optional, only 2026-04-17; body has no additional properties, exactly 1 line item; 201 session requiring buyer continuation; sessions only of their owner (404)`;

export const checkout: CheckDef = {
  name: "domain/checkout",
  title:
    "checkout: strict body and headers, API-Version, same key same session, owner-only sessions, price checks",
  needs: { roles: ["owner"], prices: ["credits"] },
  mutates: true,
  async run(ctx) {
    const price = ctx.info.prices.credits as {
      id: string;
      currency: string;
      unitAmount: number;
      name: string;
    };
    const body = { line_items: [{ id: price.id }], currency: price.currency, capabilities: {} };
    const create = (json: unknown, headers: Record<string, string>, role: Role = "owner") =>
      ctx.call({ op: "createCheckoutSession", as: ctx.as(role), json, headers });
    const cancelLater = (ex: Exchange) => {
      if (ex.status === 201 && ex.body?.id)
        ctx.defer(() =>
          ctx.call({ op: "cancelCheckoutSession", params: { id: ex.body.id }, as: ctx.as("owner") }),
        );
    };
    const expectStatus = async (
      label: string,
      json: unknown,
      headers: Record<string, string>,
      expected: number,
    ) => {
      const ex = await create(json, headers);
      cancelLater(ex);
      ctx.expect(ex.status === expected, ACP_RULE, `${label}: answered ${ex.status}, not ${expected}`, ex);
      return ex;
    };
    const k = (n = 20) =>
      fresh("acp")
        .replaceAll(/[^a-zA-Z0-9_-]/g, "")
        .padEnd(n, "x")
        .slice(0, n);
    const created = await expectStatus(
      "a valid session with API-Version 2026-04-17",
      body,
      { "idempotency-key": k(), "api-version": "2026-04-17" },
      201,
    );
    if (created.status === 201) {
      ctx.expect(
        typeof created.body?.continue_url === "string",
        ACP_RULE,
        "a new session has no continue_url",
        created,
      );
    }
    await expectStatus(
      `Idempotency-Key of ${LIMITS.acpIdempotencyKey} characters`,
      body,
      { "idempotency-key": k(LIMITS.acpIdempotencyKey) },
      201,
    );
    await expectStatus(
      `Idempotency-Key of ${LIMITS.acpIdempotencyKey + 1} characters`,
      body,
      { "idempotency-key": k(LIMITS.acpIdempotencyKey + 1) },
      400,
    );
    await expectStatus("Idempotency-Key with a dot", body, { "idempotency-key": "conformance.key" }, 400);
    await expectStatus("no Idempotency-Key", body, {}, 400);
    await expectStatus(
      "API-Version 2025-01-01",
      body,
      { "idempotency-key": k(), "api-version": "2025-01-01" },
      400,
    );
    await expectStatus(
      "an extra top-level property",
      { ...body, coupon: "FREE" },
      { "idempotency-key": k() },
      400,
    );
    await expectStatus(
      "two line items",
      { ...body, line_items: [{ id: price.id }, { id: price.id }] },
      { "idempotency-key": k() },
      400,
    );
    await expectStatus(
      "an unknown price",
      { ...body, line_items: [{ id: "price_conformanceUnknown" }] },
      { "idempotency-key": k() },
      400,
    );
    await expectStatus(
      "a changed unit_amount",
      { ...body, line_items: [{ id: price.id, unit_amount: price.unitAmount + 1 }] },
      { "idempotency-key": k() },
      409,
    );
    const sub = Object.values(ctx.info.prices).find((p) => p.kind === "subscription");
    if (sub) {
      await expectStatus(
        "a subscription without legalAcceptance",
        { line_items: [{ id: sub.id }], currency: sub.currency, capabilities: {} },
        { "idempotency-key": k() },
        400,
      );
    }
    for (const l of [
      "header:Idempotency-Key:maxLength",
      "header:Idempotency-Key:pattern",
      "header:API-Version:enum",
      "body:additionalProperties",
      "body.line_items:maxItems",
    ])
      ctx.coverage.limit(`createCheckoutSession:${l}`);
    const key = k();
    const first = await expectStatus("a session", body, { "idempotency-key": key }, 201);
    const replay = await create(body, { "idempotency-key": key });
    if (first.status === 201)
      ctx.expect(
        ok(replay) && replay.body?.id === first.body.id,
        "API description (ACP): a replay with the same Idempotency-Key returns the same session",
        `replay answered ${replay.status} with session ${replay.body?.id}`,
        replay,
      );
    for (const k2 of ["teammate", "outsider"] as Role[]) {
      if (first.status !== 201 || !ctx.target.has(k2)) continue;
      const peek = await ctx.call({
        op: "getCheckoutSession",
        params: { id: first.body.id },
        as: ctx.as(k2),
      });
      ctx.expect(
        peek.status === 404,
        ACP_RULE,
        `${k2} reading the owner's session answered ${peek.status}, not 404`,
        peek,
      );
    }
  },
};

export const recalibrateReplay: CheckDef = {
  name: "domain/recalibrate-replay",
  title:
    "recalibrate: 202 accepted; once terminal, replaying the request key answers 200 with the same operation",
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, recalibrate: 202 accepted with the operation receipt (id, requestKey, status, progress, statusUrl, result, error); 200 replay of a terminal operation with the retained receipt, no work repeated";
    // A private copy (owned by a team-plan caller) is the sandbox: recalibration changes members.
    const copy = await ctx.call({
      op: "duplicateAudience",
      params: { audienceId: ctx.target.audience("main") },
      as: ctx.as("teammate"),
      json: { name: "Conformance recalibration sandbox" },
    });
    if (copy.status !== 201) return;
    const audienceId = copy.body.data.id as string;
    deleteAudienceLater(ctx, audienceId, "teammate");
    const key = fresh("recal");
    const send = () =>
      ctx.call({
        op: "recalibrateAudience",
        params: { audienceId },
        as: ctx.as("teammate"),
        json: { instruction: "Rebalance slightly toward larger companies" },
        headers: { "x-service-idempotency-key": key },
      });
    const first = await send();
    if (!ctx.expect(first.status === 202, rule, `a recalibration answered ${first.status}, not 202`, first))
      return;
    const opId = first.body?.data?.operation?.id;
    let last: Exchange = first;
    const done = await ctx.waitUntil(async () => {
      last = await send();
      return last.status === 200;
    }, 3_000);
    if (!ctx.expect(done, rule, `the replay never answered 200 (last ${last.status})`, last)) return;
    const op = last.body?.data?.operation ?? {};
    ctx.expect(op.id === opId, rule, `the replay names operation ${op.id}, the first answer ${opId}`, last);
    ctx.expect(
      op.status === "completed" || op.status === "failed",
      rule,
      `a 200 replay carries status ${op.status}, not a terminal one`,
      last,
    );
  },
};

export const audienceDelete: CheckDef = {
  name: "domain/audience-delete",
  title: "DELETE audience: owner only (404 for collaborators); a deleted Audience is gone (404)",
  needs: { roles: ["admin", "publisher"], changeable: ["main"], audiences: ["public"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, DELETE audience: owner only; 204; 404 `Audience not found` (missing or caller not the owner)";
    const main = ctx.target.audience("main");
    const byAdmin = await ctx.call({
      op: "deleteAudience",
      params: { audienceId: main },
      as: ctx.as("admin"),
    });
    ctx.expect(
      byAdmin.status === 404,
      rule,
      `a direct admin deleting the Audience answered ${byAdmin.status}, not 404`,
      byAdmin,
    );
    const who = duplicator(ctx);
    if (!who) return;
    const copy = await ctx.call({
      op: "duplicateAudience",
      params: { audienceId: ctx.target.audience(who.audience) },
      as: ctx.as(who.role),
      json: {},
    });
    if (copy.status !== 201) return;
    const audienceId = copy.body.data.id as string;
    const del = await ctx.call({ op: "deleteAudience", params: { audienceId }, as: ctx.as(who.role) });
    if (!ctx.expect(del.status === 204, rule, `the owner deleting an Audience answered ${del.status}`, del)) {
      deleteAudienceLater(ctx, audienceId, who.role);
      return;
    }
    const gone = await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as(who.role) });
    ctx.expect(gone.status === 404, rule, `a deleted Audience still answers ${gone.status}`, gone);
  },
};

export const pendingRecalibrations: CheckDef = {
  name: "limits/pending-recalibrations",
  title: `recalibrate: ${LIMITS.pendingRecalibrations} edits may wait; one more is 409 RECALIBRATION_IN_PROGRESS`,
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, recalibrate: 409 when ten edits of this Audience are already waiting; data.code RECALIBRATION_IN_PROGRESS (openapi.json x-max-pending)";
    const copy = await ctx.call({
      op: "duplicateAudience",
      params: { audienceId: ctx.target.audience("main") },
      as: ctx.as("teammate"),
      json: {},
    });
    if (copy.status !== 201) return;
    const audienceId = copy.body.data.id as string;
    deleteAudienceLater(ctx, audienceId, "teammate");
    const answers: Exchange[] = [];
    for (let i = 0; i <= LIMITS.pendingRecalibrations; i++) {
      answers.push(
        await ctx.call({
          op: "recalibrateAudience",
          params: { audienceId },
          as: ctx.as("teammate"),
          json: { instruction: `Rebalance toward segment ${i}` },
          headers: { "x-service-idempotency-key": fresh(`pending${i}`) },
        }),
      );
    }
    const accepted = answers.filter((a) => a.status === 202).length;
    const last = answers.at(-1) as Exchange;
    ctx.expect(
      accepted === LIMITS.pendingRecalibrations,
      rule,
      `${accepted} of ${LIMITS.pendingRecalibrations + 1} immediate recalibrations were accepted, not ${LIMITS.pendingRecalibrations}`,
      answers.find((a) => a.status !== 202) ?? last,
    );
    ctx.expect(
      last.status === 409 && last.body?.data?.code === "RECALIBRATION_IN_PROGRESS",
      rule,
      `the eleventh answered ${last.status} ${last.body?.data?.code ?? ""}`,
      last,
    );
    ctx.coverage.limit("recalibrateAudience:x-max-pending");
  },
};

export const domainChecks: CheckDef[] = [
  audienceDelete,
  pendingRecalibrations,
  recalibrateReplay,
  recalibrationStatus,
  identity,
  keySecrets,
  keyAccess,
  selfDelete,
  visibility,
  fileRedaction,
  updateRules,
  collaborators,
  membersRules,
  planLimit,
  facets,
  largeAudience,
  formationPages,
  formationVisibility,
  previewStream,
  largePreview,
  progressRules,
  exportsRules,
  followRules,
  duplicateReplay,
  checkout,
];

export { deleteFormationLater, hypothesis };
