/**
 * Thresholds at exactly their boundary and one past it, reached by changing membership: the plan's member
 * cap (the member that reaches it is accepted, the next one refused) and the preview's soft warning
 * (false at 49 members, true at 50).
 */

import { limits } from "../../lib/description/contract.ts";
import { type CheckContext, check } from "../../lib/running/context.ts";
import { memberIds } from "../../lib/running/helpers.ts";

export const memberCapBoundary = check("limits/member-cap-boundary", ["members/plan-cap"], {
  title: "one below the member cap: the member that reaches the cap is added, the next one is 403 PLAN_LIMIT",
  needs: { roles: ["owner"], changeable: ["atCap"], minds: ["ownLoose"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const audienceId = ctx.target.audience("atCap");
    const loose = ctx.target.mind("ownLoose");
    const members = await memberIds(ctx, audienceId);
    const out = members.find((id) => id !== loose);
    if (out === undefined)
      return void ctx.report({ rule: "members/plan-cap", message: "atCap has no member to take out" });
    const add = (mindId: string) =>
      ctx.call({ op: "addMembers", params: { audienceId }, as: owner, json: { mindId } });
    const removed = await ctx.call({ op: "removeMember", params: { audienceId, mindId: out }, as: owner });
    ctx.requireStatus(removed, 204, "members/plan-cap", "taking a member out");
    ctx.defer(async () => {
      await ctx.call({ op: "removeMember", params: { audienceId, mindId: loose }, as: owner });
      await add(out);
    });
    const reaching = await add(loose);
    ctx.expectStatus(
      reaching,
      200,
      "members/plan-cap",
      "one below the cap, adding the member that reaches it",
    );
    const past = await add(out);
    ctx.requireStatus(past, 403, "members/plan-cap", "at the cap again, one more");
    const d = past.body?.data ?? {};
    ctx.expect(
      d.code === "PLAN_LIMIT" && d.current >= d.limit && d.limit === members.length,
      "members/plan-cap",
      `at the cap of ${members.length}: data ${JSON.stringify(d)}`,
      past,
    );
  },
});

/** The Minds the owner may add: members of its other Audiences, and its loose Mind. */
async function ownerMinds(ctx: CheckContext): Promise<string[]> {
  const all = new Set<string>();
  for (const handle of ["main", "private"])
    if (ctx.info.audiences[handle])
      for (const id of await memberIds(ctx, ctx.target.audience(handle))) all.add(id);
  if (ctx.info.minds.ownLoose) all.add(ctx.target.mind("ownLoose"));
  return [...all];
}

export const previewSoftWarn = check("limits/preview-soft-warn", ["preview/thresholds"], {
  title: `preview: softWarn false at ${limits().previewSoftWarnFrom - 1} members and true at ${limits().previewSoftWarnFrom}`,
  needs: { roles: ["owner"], changeable: ["empty"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const audienceId = ctx.target.audience("empty");
    const from = limits().previewSoftWarnFrom;
    const minds = await ownerMinds(ctx);
    ctx.require(
      (await memberIds(ctx, audienceId)).length === 0,
      "preview/thresholds",
      "`empty` has members",
      null,
    );
    if (minds.length < from) {
      ctx.report({
        rule: "preview/thresholds",
        message: `the owner has ${minds.length} Minds; ${from} are needed to reach the boundary`,
      });
      return;
    }
    ctx.defer(async () => {
      for (const mindId of minds.slice(0, from))
        await ctx.call({ op: "removeMember", params: { audienceId, mindId }, as: owner });
    });
    for (const [count, warn] of [
      [from - 1, false],
      [from, true],
    ] as const) {
      const have = (await memberIds(ctx, audienceId)).length;
      const added = await ctx.call({
        op: "addMembers",
        params: { audienceId },
        as: owner,
        json: { mindIds: minds.slice(have, count) },
      });
      ctx.requireStatus(added, 200, "preview/thresholds", `adding Minds to reach ${count}`);
      const ex = await ctx.call({
        op: "previewFormation",
        params: { audienceId },
        as: owner,
        headers: { accept: "application/json" },
        json: {},
      });
      ctx.requireStatus(ex, 200, "preview/thresholds", `preview at ${count} members`);
      const d = ex.body?.data ?? {};
      ctx.expect(
        d.memberCount === count && d.softWarn === warn && d.hardCapExceeded === false,
        "preview/thresholds",
        `at ${count} members: memberCount ${d.memberCount}, softWarn ${d.softWarn}, hardCapExceeded ${d.hardCapExceeded}`,
        ex,
      );
    }
  },
});
