/**
 * Members: owner only, `added` counts distinct IDs, `mindId` wins, the plan's member cap.
 */

import type { Role } from "../../lib/http/target.ts";
import { check } from "../../lib/running/context.ts";
import { memberIds, ok, removeMemberLater } from "../../lib/running/helpers.ts";

export const membersRules = check("domain/members", ["members/add-rules"], {
  needs: {
    roles: ["owner", "admin"],
    changeable: ["main"],
    minds: ["ownLoose", "foreignMind", "mainMember"],
  },
  mutates: true,
  async run(ctx) {
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
    ctx.expectStatus(atomic, 404, "members/add-rules", "a request with an inaccessible Mind");
    ctx.expect(
      !(await memberIds(ctx, audienceId)).includes(loose),
      "members/add-rules",
      "a refused request added its accessible Mind",
      atomic,
    );
    const byAdmin = await add({ mindId: loose }, "admin");
    ctx.expectStatus(byAdmin, 404, "members/add-rules", "a direct admin adding members");
    const wins = await add({ mindId: loose, mindIds: [foreign] });
    if (ctx.expectStatus(wins, 200, "members/add-rules", "mindId with an inaccessible mindIds"))
      ctx.expect(
        wins.body?.data?.added === 1,
        "members/add-rules",
        `added ${JSON.stringify(wins.body?.data?.added)}, not 1`,
        wins,
      );
    const after = await memberIds(ctx, audienceId);
    ctx.expect(
      after.includes(loose) && !after.includes(foreign),
      "members/add-rules",
      "mindId was not the one added",
      wins,
    );
    const distinct = await add({
      mindIds: [member, loose, member, loose.toUpperCase() === loose ? loose : loose],
    });
    if (ctx.expectStatus(distinct, 200, "members/add-rules", "re-adding members"))
      ctx.expect(
        distinct.body?.data?.added === 2,
        "members/add-rules",
        `2 distinct IDs (4 sent, all already members) reported added ${JSON.stringify(distinct.body?.data?.added)}`,
        distinct,
      );
    const del = await ctx.call({
      op: "removeMember",
      params: { audienceId, mindId: loose },
      as: ctx.as("owner"),
    });
    ctx.expectStatus(del, 204, "members/add-rules", "removing a member");
    const again = await ctx.call({
      op: "removeMember",
      params: { audienceId, mindId: loose },
      as: ctx.as("owner"),
    });
    ctx.expect(again.status === 204, "members/add-rules", `answered ${again.status}`, again);
    ctx.expect(
      !(await memberIds(ctx, audienceId)).includes(loose),
      "members/add-rules",
      "the removed Mind is still a member",
      del,
    );
    if (present.has(loose)) await add({ mindId: loose });
  },
});

export const planLimit = check("domain/plan-limit", ["members/plan-cap"], {
  title: "adding to an Audience at its member cap gives 403 PlanLimitError with current >= limit",
  needs: { roles: ["owner"], changeable: ["atCap"], minds: ["ownLoose"] },
  mutates: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("atCap");
    const mind = ctx.target.mind("ownLoose");
    const ex = await ctx.call({
      op: "addMembers",
      params: { audienceId },
      as: ctx.as("owner"),
      json: { mindId: mind },
    });
    if (ok(ex)) removeMemberLater(ctx, audienceId, mind);
    ctx.requireStatus(ex, 403, "members/plan-cap", "adding past the member cap");
    const d = ex.body?.data ?? {};
    ctx.expect(
      d.code === "PLAN_LIMIT" && d.limitType === "groupMembers",
      "members/plan-cap",
      `data.code ${d.code}, limitType ${d.limitType} (the member cap is groupMembers)`,
      ex,
    );
    ctx.expect(
      Number.isInteger(d.current) && Number.isInteger(d.limit) && d.current >= d.limit,
      "members/plan-cap",
      `current ${d.current} is below limit ${d.limit} at the cap`,
      ex,
    );
    const plan = ctx.info.plans.owner;
    if (plan)
      ctx.expect(
        d.currentPlan === plan,
        "members/plan-cap",
        `currentPlan ${d.currentPlan}, the owner's plan is ${plan}`,
        ex,
      );
    if (d.currentPlan === "premium")
      ctx.expect(
        ex.body?.statusMessage === "Individual plan limit reached",
        "members/plan-cap",
        `statusMessage ${JSON.stringify(ex.body?.statusMessage)}`,
        ex,
      );
  },
});
