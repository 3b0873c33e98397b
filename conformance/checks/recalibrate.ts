/**
 * Recalibration: replays of a request key, and the limit on pending edits.
 */
import { LIMITS } from "../../src/contract/limits.ts";
import type { CheckDef } from "../lib/context.ts";
import { deleteAudienceLater, fresh } from "../lib/helpers.ts";
import type { Exchange } from "../lib/http.ts";

export const recalibrateReplay: CheckDef = {
  name: "domain/recalibrate-replay",
  rules: ["recalibrate/replay"],
  title:
    "recalibrate: 202 accepted; once terminal, replaying the request key answers 200 with the same operation",
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, recalibrate: 202 accepted with the operation receipt (id, requestKey, status, progress, statusUrl, result, error); 200 replay of a terminal operation with the retained receipt, no work repeated";
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
    if (!ctx.expect(first.status === 202, rule, `a recalibration answered ${first.status}, not 202`, first))
      return;
    const opId = first.body?.data?.operation?.id;
    let last: Exchange = first;
    const done = await ctx.waitUntil(async () => {
      last = await send();
      return last.status === 200;
    }, 3_000);
    if (!done) return ctx.outOfTime(rule, `the replay never answered 200 (last ${last.status})`, last);
    const op = last.body?.data?.operation ?? {};
    ctx.expect(op.id === opId, rule, `the replay names operation ${op.id}, the first answer ${opId}`, last);
    ctx.expect(
      op.status === "completed" || op.status === "failed",
      rule,
      `a 200 replay carries status ${op.status}, not a terminal one`,
      last,
    );
  },
};

export const pendingRecalibrations: CheckDef = {
  name: "limits/pending-recalibrations",
  rules: ["recalibrate/pending-limit"],
  title: `recalibrate: ${LIMITS.pendingRecalibrations} edits may wait; one more is 409 RECALIBRATION_IN_PROGRESS`,
  needs: { roles: ["teammate"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, recalibrate: 409 when ten edits of this Audience are already waiting; data.code RECALIBRATION_IN_PROGRESS (openapi.json x-max-pending)";
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
      rule,
      `${accepted} of ${LIMITS.pendingRecalibrations + 1} immediate recalibrations were accepted, not ${LIMITS.pendingRecalibrations}`,
      answers.find((a) => a.status !== 202) ?? last,
    );
    ctx.expect(
      last.status === 409 && last.body?.data?.code === "RECALIBRATION_IN_PROGRESS",
      rule,
      `the eleventh answered ${last.status} ${last.body?.data?.code ?? ""}`,
      last,
    );
    ctx.coverage.limit("recalibrateAudience:x-max-pending");
  },
};

export const recalibrateOwnerOnly: CheckDef = {
  name: "domain/recalibrate-owner-only",
  rules: ["recalibrate/owner-only"],
  title:
    "recalibrate: the owner only; collaborators and viewers who may read the Audience get 404 and queue nothing",
  needs: { roles: ["owner"], audiences: ["main"] },
  mutates: true,
  async run(ctx) {
    const rule =
      "API description, recalibrate: the caller is the owner (staff amendments aside); 404 `Audience not found` when missing or the caller is not the owner";
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
        rule,
        `${role}, who may read the Audience, recalibrating answered ${ex.status}, not 404`,
        ex,
      );
    }
    ctx.expect(
      (await pending()) === before,
      rule,
      "refused recalibrations changed the Audience's calibration state",
      null,
    );
  },
};
