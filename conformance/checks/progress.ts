/**
 * Progress: the readiness arithmetic the description defines.
 */
import type { CheckDef } from "../lib/context.ts";

export const progressRules: CheckDef = {
  name: "domain/progress",
  rules: ["progress/readiness"],
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
