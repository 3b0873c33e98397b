/**
 * Progress: the readiness arithmetic the description defines, and that the summary agrees with the member
 * rows above it, also while members that a recalibration added are still training.
 */

import { readinessDisagreements } from "../../lib/description/answers.ts";
import type { Exchange } from "../../lib/http/http.ts";
import { check } from "../../lib/running/context.ts";
import { recalibrate, teammateCopy } from "../../lib/running/helpers.ts";

export const progressRules = check("domain/progress", ["progress/readiness"], {
  needs: { roles: ["owner", "teammate"], audiences: ["main"] },
  mutates: true,
  concurrent: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const ex = await ctx.call({ op: "getAudienceProgress", params: { audienceId }, as: ctx.as("owner") });
    ctx.requireStatus(ex, 200, "progress/readiness", "the owner reading main's progress");
    const d = ex.body.data;
    ctx.expect(d.audienceId === audienceId, "progress/readiness", `audienceId ${d.audienceId}`, ex);
    for (const m of readinessDisagreements(d)) ctx.expect(false, "progress/readiness", m, ex);

    // Members a recalibration adds train while they can already chat: the summary must say so as they go.
    const as = ctx.as("teammate");
    const copy = await teammateCopy(ctx, "readiness");
    ctx.requireStatus(copy, 201, "progress/readiness", "duplicating the sandbox");
    const copyId = copy.body.data.id as string;
    // The copy's own count: main may change while this check waits beside others.
    const start = await ctx.call({ op: "getAudienceProgress", params: { audienceId: copyId }, as });
    const before = Number(start.body?.data?.readiness?.total ?? 0);
    const grow = await recalibrate(ctx, copyId, as, { instruction: "Add 5 more hospital procurement leads" });
    ctx.requireStatus(grow, 202, "progress/readiness", "an additive recalibration");
    let last: Exchange = grow;
    let trained = false;
    const settled = await ctx.waitUntil(async () => {
      last = await ctx.call({ op: "getAudienceProgress", params: { audienceId: copyId }, as });
      const now = last.body?.data;
      for (const m of readinessDisagreements(now ?? {})) ctx.expect(false, "progress/readiness", m, last);
      const r = now?.readiness ?? {};
      trained = r.total > before && r.training === 0;
      return trained;
    }, 500);
    if (!settled)
      ctx.outOfTime("progress/readiness", "the added members were still training after the wait", last);
  },
});
