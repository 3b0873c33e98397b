/**
 * Recalibration: replays of a request key, and the limit on pending edits.
 */
import { LIMITS } from "../../src/contract/limits.ts";
import { check } from "../lib/context.ts";
import { deleteAudienceLater, fresh } from "../lib/helpers.ts";
import type { Exchange } from "../lib/http.ts";

export const recalibrateReplay = check("domain/recalibrate-replay", ["recalibrate/replay"], {
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
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
    if (
      !ctx.expect(
        first.status === 202,
        "recalibrate/replay",
        `a recalibration answered ${first.status}, not 202`,
        first,
      )
    )
      return;
    const opId = first.body?.data?.operation?.id;
    let last: Exchange = first;
    const done = await ctx.waitUntil(async () => {
      last = await send();
      return last.status === 200;
    }, 3_000);
    if (!done)
      return ctx.outOfTime("recalibrate/replay", `the replay never answered 200 (last ${last.status})`, last);
    const op = last.body?.data?.operation ?? {};
    ctx.expect(
      op.id === opId,
      "recalibrate/replay",
      `the replay names operation ${op.id}, the first answer ${opId}`,
      last,
    );
    ctx.expect(
      op.status === "completed" || op.status === "failed",
      "recalibrate/replay",
      `a 200 replay carries status ${op.status}, not a terminal one`,
      last,
    );
  },
});

export const pendingRecalibrations = check("limits/pending-recalibrations", ["recalibrate/pending-limit"], {
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
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
      "recalibrate/pending-limit",
      `${accepted} of ${LIMITS.pendingRecalibrations + 1} immediate recalibrations were accepted, not ${LIMITS.pendingRecalibrations}`,
      answers.find((a) => a.status !== 202) ?? last,
    );
    ctx.expect(
      last.status === 409 && last.body?.data?.code === "RECALIBRATION_IN_PROGRESS",
      "recalibrate/pending-limit",
      `the eleventh answered ${last.status} ${last.body?.data?.code ?? ""}`,
      last,
    );
    ctx.coverage.limit("recalibrateAudience:x-max-pending");
  },
});

export const recalibrateOwnerOnly = check("domain/recalibrate-owner-only", ["recalibrate/owner-only"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const pending = async () => {
      const ex = await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as("owner") });
      return JSON.stringify(ex.body?.data?.calibration ?? null);
    };
    const before = await pending();
    for (const role of ["member", "teammate", "studyViewer"] as const) {
      if (!ctx.target.has(role)) continue;
      const ex = await ctx.call({
        op: "recalibrateAudience",
        params: { audienceId },
        as: ctx.as(role),
        json: { instruction: "Add more people from large companies" },
      });
      ctx.expect(
        ex.status === 404,
        "recalibrate/owner-only",
        `${role}, who may read the Audience, recalibrating answered ${ex.status}, not 404`,
        ex,
      );
    }
    ctx.expect(
      (await pending()) === before,
      "recalibrate/owner-only",
      "refused recalibrations changed the Audience's calibration state",
      null,
    );
  },
});
