/**
 * State that moves with time, followed through its transitions: an export job until its artifact can be
 * downloaded, and Go deeper research through its stages. On the simulator the kit moves the virtual clock;
 * against a deployment it polls within `pollTimeoutMs`, and a budget that runs out skips the check.
 */

import { readinessDisagreements } from "../../lib/description/answers.ts";
import type { Exchange } from "../../lib/http/http.ts";
import { check } from "../../lib/running/context.ts";
import { recalibrate, teammateCopy } from "../../lib/running/helpers.ts";

export const exportJob = check("domain/export-job", ["exports/job"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const params = { audienceId: ctx.target.audience("main") };
    const query = { kind: "brief", format: "md" };
    const as = ctx.as("owner");
    const started = await ctx.call({ op: "exportAudience", params, as, json: { ...query, force: true } });
    ctx.requireStatus(started, 200, "exports/job", "a forced export");
    const queued = started.body?.data?.status === "queued";
    ctx.coverage.transition("export", "∅", queued ? "queued" : "cached");
    if (queued) {
      // Nothing is downloadable before the job is done: the contract's 404 "no artifact is ready".
      const early = await ctx.call({ op: "downloadExport", params, as, query });
      ctx.expectStatus(early, 404, "exports/job", "downloading a forced export before it is ready");
    }
    let download: Exchange = started;
    const done = await ctx.waitUntil(
      async () => {
        const status = await ctx.call({ op: "getExportStatus", params, as, query });
        if (status.body?.data?.status === "queued" || status.body?.data?.status === "running") return false;
        download = await ctx.call({ op: "downloadExport", params, as, query });
        return download.status === 200;
      },
      1_000,
      "export",
    );
    if (!done) return ctx.outOfTime("exports/job", "the export could not be downloaded", download, "export");
    if (queued) ctx.coverage.transition("export", "queued", "downloadable");
    await ctx.stillAfter("exports/job", "the finished export's download", "200", async () => {
      const exchange = await ctx.call({ op: "downloadExport", params, as, query });
      return { state: exchange.status, exchange };
    });
    ctx.expect(
      (download.header("content-type") ?? "").startsWith("text/markdown") && download.text.length > 0,
      "exports/job",
      `the md artifact came as ${download.header("content-type")} with ${download.text.length} characters`,
      download,
    );
    // `kind` defaults to brief: the status without it is the brief's.
    const [withKind, without] = [
      await ctx.call({ op: "getExportStatus", params, as, query }),
      await ctx.call({ op: "getExportStatus", params, as, query: { format: "md" } }),
    ];
    ctx.expect(
      JSON.stringify(without.body?.data) === JSON.stringify(withKind.body?.data),
      "exports/job",
      `export-status without kind answered ${JSON.stringify(without.body?.data)?.slice(0, 200)}, not the brief's`,
      without,
    );
    // Nothing changed since: asking again (not forced) returns the cached artifact at once.
    const again = await ctx.call({ op: "exportAudience", params, as, json: query });
    if (
      ctx.expect(
        again.status === 200 && again.body?.data?.status !== "queued",
        "exports/job",
        `asking again for the artifact just made answered ${again.status} ${again.body?.data?.status}`,
        again,
      )
    )
      ctx.coverage.transition("export", "∅", "cached");
  },
});

const STAGES = ["researching", "waiting_for_runs", "recalibrating", "done"];

export const researchStages = check("domain/research-stages", ["research/stages", "progress/readiness"], {
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  concurrent: true,
  async run(ctx) {
    // A private copy owned by a team-plan caller is the sandbox: research changes grounding and members.
    const as = ctx.as("teammate");
    const copy = await teammateCopy(ctx, "research");
    ctx.requireStatus(copy, 201, "research/stages", "duplicating the sandbox");
    const audienceId = copy.body.data.id as string;
    const accepted = await recalibrate(ctx, audienceId, as, { deepen: { topics: ["pricing sensitivity"] } });
    const r = accepted.body?.data?.research ?? {};
    ctx.requireStatus(accepted, 202, "research/stages", "deepen");
    ctx.expect(
      r.phase === "researching" && r.status === "queued" && r.stage === "researching",
      "research/stages",
      `deepen answered phase ${r.phase}, status ${r.status}, stage ${r.stage}`,
      accepted,
    );
    ctx.coverage.transition("research", "∅", String(r.stage));
    let stage = String(r.stage);
    let progress = 0;
    let last: Exchange = accepted;
    const done = await ctx.waitUntil(
      async () => {
        last = await ctx.call({ op: "getAudienceProgress", params: { audienceId }, as });
        const now = last.body?.data?.research ?? {};
        // "Research is never a reason to wait": readiness follows the members alone while it runs.
        for (const m of readinessDisagreements(last.body?.data ?? {}))
          ctx.expect(false, "progress/readiness", `while research is at ${now.stage}: ${m}`, last);
        const next = String(now.stage);
        // `researching` while research runs or waits; `researched` once it is done.
        if (next !== "done" && now.status !== "failed")
          ctx.expect(
            now.phase === "researching",
            "research/stages",
            `research at stage ${next} reports phase ${now.phase}, not researching`,
            last,
          );
        ctx.expect(
          STAGES.indexOf(next) >= STAGES.indexOf(stage),
          "research/stages",
          `research.stage went back from ${stage} to ${next}`,
          last,
        );
        ctx.expect(
          Number(now.progress) >= progress,
          "research/stages",
          `progress fell from ${progress} to ${now.progress}`,
          last,
        );
        if (next !== stage && STAGES.includes(next)) ctx.coverage.transition("research", stage, next);
        stage = next;
        progress = Number(now.progress);
        return stage === "done" || now.status === "failed";
      },
      1_000,
      "research",
    );
    if (!done)
      return ctx.outOfTime("research/stages", `research was still at stage ${stage}`, last, "research");
    const final = last.body?.data?.research ?? {};
    if (final.status === "completed")
      ctx.expect(
        final.phase === "researched" && final.progress === 100,
        "research/stages",
        `completed research reports phase ${final.phase}, progress ${final.progress}`,
        last,
      );
    const state = (r: { status?: unknown; stage?: unknown; phase?: unknown }) =>
      `${r.status}, ${r.stage}, ${r.phase}`;
    await ctx.stillAfter("research/stages", "the finished research", state(final), async () => {
      const exchange = await ctx.call({ op: "getAudienceProgress", params: { audienceId }, as });
      return { state: state(exchange.body?.data?.research ?? {}), exchange };
    });
    // A Go deeper asked while research runs waits behind it, and says so; one asked with none running does not.
    const deepen = (topic: string) => recalibrate(ctx, audienceId, as, { deepen: { topics: [topic] } });
    const alone = await deepen("switching costs");
    const behind = await deepen("procurement cycles");
    if (ctx.expectStatus(alone, 202, "research/stages", "deepen with no research running")) {
      ctx.expect(
        alone.body?.data?.research?.queuedBehindRunningResearch !== true,
        "research/stages",
        "a deepen with no research running says it is queued behind running research",
        alone,
      );
    }
    if (ctx.expectStatus(behind, 202, "research/stages", "deepen while research runs"))
      ctx.expect(
        behind.body?.data?.research?.queuedBehindRunningResearch === true,
        "research/stages",
        `a deepen while research runs answered queuedBehindRunningResearch ${JSON.stringify(behind.body?.data?.research?.queuedBehindRunningResearch)}`,
        behind,
      );
  },
});
