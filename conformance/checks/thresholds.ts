/**
 * Thresholds at exactly their boundary and one past it, reached by changing membership: the plan's member
 * cap (the member that reaches it is accepted, the next one refused) and the preview's soft warning
 * (false at 49 members, true at 50).
 */
import { LIMITS } from "../../src/contract/limits.ts";
import type { CheckContext, CheckDef } from "../lib/context.ts";
import { memberIds } from "../lib/helpers.ts";

const CAP_RULE =
  "API description, members: adding past the plan's Audience member cap is 403 PlanLimitError (`limit` and `current` authoritative); an Audience below the cap takes members up to it";
const WARN_RULE = `API description, Formations preview: softWarn true from ${LIMITS.previewSoftWarnFrom} members, hardCapExceeded true above ${LIMITS.previewHardCap}`;

export const memberCapBoundary: CheckDef = {
  name: "limits/member-cap-boundary",
  rules: ["members/plan-cap"],
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
      return void ctx.report({ rule: CAP_RULE, message: "atCap has no member to take out" });
    const add = (mindId: string) =>
      ctx.call({ op: "addMembers", params: { audienceId }, as: owner, json: { mindId } });
    const removed = await ctx.call({ op: "removeMember", params: { audienceId, mindId: out }, as: owner });
    if (
      !ctx.expect(removed.status === 204, CAP_RULE, `taking a member out answered ${removed.status}`, removed)
    )
      return;
    ctx.defer(async () => {
      await ctx.call({ op: "removeMember", params: { audienceId, mindId: loose }, as: owner });
      await add(out);
    });
    const reaching = await add(loose);
    ctx.expect(
      reaching.status === 200,
      CAP_RULE,
      `one below the cap, adding the member that reaches it answered ${reaching.status}, not 200`,
      reaching,
    );
    const past = await add(out);
    if (
      !ctx.expect(
        past.status === 403,
        CAP_RULE,
        `at the cap again, one more answered ${past.status}, not 403`,
        past,
      )
    )
      return;
    const d = past.body?.data ?? {};
    ctx.expect(
      d.code === "PLAN_LIMIT" && d.current >= d.limit && d.limit === members.length,
      CAP_RULE,
      `at the cap of ${members.length}: data ${JSON.stringify(d)}`,
      past,
    );
  },
};

/** The Minds the owner may add: members of its other Audiences, and its loose Mind. */
async function ownerMinds(ctx: CheckContext): Promise<string[]> {
  const all = new Set<string>();
  for (const handle of ["main", "private"])
    if (ctx.info.audiences[handle])
      for (const id of await memberIds(ctx, ctx.target.audience(handle))) all.add(id);
  if (ctx.info.minds.ownLoose) all.add(ctx.target.mind("ownLoose"));
  return [...all];
}

export const previewSoftWarn: CheckDef = {
  name: "limits/preview-soft-warn",
  rules: ["preview/thresholds"],
  title: `preview: softWarn false at ${LIMITS.previewSoftWarnFrom - 1} members and true at ${LIMITS.previewSoftWarnFrom}`,
  needs: { roles: ["owner"], changeable: ["empty"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const owner = ctx.as("owner");
    const audienceId = ctx.target.audience("empty");
    const from = LIMITS.previewSoftWarnFrom;
    const minds = await ownerMinds(ctx);
    if (!ctx.expect((await memberIds(ctx, audienceId)).length === 0, WARN_RULE, "`empty` has members", null))
      return;
    if (minds.length < from) {
      ctx.report({
        rule: WARN_RULE,
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
      if (
        !ctx.expect(
          added.status === 200,
          WARN_RULE,
          `adding Minds to reach ${count} answered ${added.status}`,
          added,
        )
      )
        return;
      const ex = await ctx.call({
        op: "previewFormation",
        params: { audienceId },
        as: owner,
        headers: { accept: "application/json" },
        json: {},
      });
      if (!ctx.expect(ex.status === 200, WARN_RULE, `preview at ${count} members answered ${ex.status}`, ex))
        return;
      const d = ex.body?.data ?? {};
      ctx.expect(
        d.memberCount === count && d.softWarn === warn && d.hardCapExceeded === false,
        WARN_RULE,
        `at ${count} members: memberCount ${d.memberCount}, softWarn ${d.softWarn}, hardCapExceeded ${d.hardCapExceeded}`,
        ex,
      );
    }
  },
};
