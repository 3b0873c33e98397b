/**
 * Progress: the readiness arithmetic the description defines.
 */
import { check } from "../lib/context.ts";

export const progressRules = check("domain/progress", ["progress/readiness"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const ex = await ctx.call({ op: "getAudienceProgress", params: { audienceId }, as: ctx.as("owner") });
    const d = ex.body?.data;
    if (!d) return;
    ctx.expect(d.audienceId === audienceId, "progress/readiness", `audienceId ${d.audienceId}`, ex);
    ctx.expect(
      d.readiness?.failed === 0,
      "progress/readiness",
      `readiness.failed is ${d.readiness?.failed}`,
      ex,
    );
    ctx.expect(
      d.readiness?.total === d.members?.length,
      "progress/readiness",
      `readiness.total ${d.readiness?.total} for ${d.members?.length} members`,
      ex,
    );
    for (const m of d.members ?? [])
      if (m.update?.beingRepaired === true)
        ctx.expect(
          m.update.trainingStatus === "queued",
          "progress/readiness",
          `a member being repaired has trainingStatus ${m.update.trainingStatus}`,
          ex,
        );
  },
});
