/**
 * Progress: the readiness arithmetic the description defines, and that the summary agrees with the member
 * rows above it, also while members that a recalibration added are still training.
 */

import type { Exchange } from "../lib/http/http.ts";
import { check } from "../lib/running/context.ts";
import { teammateCopy } from "../lib/running/helpers.ts";

interface Update {
  readyToChat?: boolean;
  learningInBackground?: boolean;
  trainingStatus?: string;
  beingRepaired?: boolean;
}

/**
 * Where a progress document's readiness disagrees with its rows: `isReady` is "every member can chat",
 * `learning` "ready members still learning", `fullyTrained` "every member can chat and none is learning",
 * members being retrained count in `training`, `failed` is always 0, `startsNow` holds when nothing trains
 * and at least one member and at least half of them can chat, and `leftOut` is the members in training.
 */
export function readinessDisagreements(data: {
  members?: { update?: Update }[];
  readiness?: Record<string, unknown>;
}): string[] {
  const rows = (data.members ?? []).map((m) => m.update ?? {});
  const r = data.readiness ?? {};
  const canChat = rows.filter((u) => u.readyToChat === true);
  const learning = canChat.filter((u) => u.learningInBackground === true).length;
  const training = rows.filter((u) => u.trainingStatus === "queued" || u.trainingStatus === "running").length;
  const isReady = rows.length > 0 && canChat.length === rows.length;
  const out: string[] = [];
  const want = (field: string, expected: unknown, why: string) => {
    if (r[field] !== expected) out.push(`readiness.${field} is ${JSON.stringify(r[field])}; ${why}`);
  };
  want("total", rows.length, `${rows.length} members are listed`);
  want("failed", 0, "it is always 0");
  want("ready", canChat.length, `${canChat.length} members' rows say readyToChat`);
  want("isReady", isReady, `${canChat.length} of ${rows.length} members can chat`);
  want("learning", learning, `${learning} members that can chat are learning in the background`);
  want("fullyTrained", isReady && learning === 0, `isReady is ${isReady} and ${learning} are learning`);
  want("training", training, `${training} members are queued or running`);
  // A Study runs at once when nothing trains and at least one member, and at least half of them, answer;
  // the members it would run without are those still being prepared.
  const starts = training === 0 && canChat.length >= 1 && canChat.length * 2 >= rows.length;
  want("startsNow", starts, `${training} train and ${canChat.length} of ${rows.length} members can chat`);
  want("leftOut", training, `${training} members are still being prepared`);
  for (const u of rows)
    if (u.beingRepaired === true && u.trainingStatus !== "queued")
      out.push(`a member being repaired has trainingStatus ${u.trainingStatus}`);
  return out;
}

export const progressRules = check("domain/progress", ["progress/readiness"], {
  needs: { roles: ["owner", "teammate"], audiences: ["main"] },
  mutates: true,
  concurrent: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const ex = await ctx.call({ op: "getAudienceProgress", params: { audienceId }, as: ctx.as("owner") });
    if (!ctx.expectStatus(ex, 200, "progress/readiness", "the owner reading main's progress")) return;
    const d = ex.body.data;
    ctx.expect(d.audienceId === audienceId, "progress/readiness", `audienceId ${d.audienceId}`, ex);
    for (const m of readinessDisagreements(d)) ctx.expect(false, "progress/readiness", m, ex);

    // Members a recalibration adds train while they can already chat: the summary must say so as they go.
    const as = ctx.as("teammate");
    const copy = await teammateCopy(ctx, "readiness");
    if (!ctx.expectStatus(copy, 201, "progress/readiness", "duplicating the sandbox")) return;
    const copyId = copy.body.data.id as string;
    // The copy's own count: main may change while this check waits beside others.
    const start = await ctx.call({ op: "getAudienceProgress", params: { audienceId: copyId }, as });
    const before = Number(start.body?.data?.readiness?.total ?? 0);
    const grow = await ctx.call({
      op: "recalibrateAudience",
      params: { audienceId: copyId },
      as,
      json: { instruction: "Add 5 more hospital procurement leads" },
    });
    if (!ctx.expectStatus(grow, 202, "progress/readiness", "an additive recalibration")) return;
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
