/**
 * Members: owner only, `added` counts distinct IDs, `mindId` wins, the plan's member cap.
 */
import type { CheckDef } from "../lib/context.ts";
import { memberIds, ok, removeMemberLater } from "../lib/helpers.ts";
import type { Role } from "../lib/target.ts";

export const membersRules: CheckDef = {
  name: "domain/members",
  rules: ["members/add-rules"],
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
  rules: ["members/plan-cap"],
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
