/**
 * Recalibration: replays of a request key, and the limit on pending edits.
 */

import { limits } from "../../lib/description/contract.ts";
import type { RuleId } from "../../lib/description/rules.ts";
import type { Exchange } from "../../lib/http/http.ts";
import { type CheckContext, check } from "../../lib/running/context.ts";
import { fresh, recalibrate, teammateCopy } from "../../lib/running/helpers.ts";

interface Sandbox {
  audienceId: string;
  /** Asks for one recalibration of the copy; again under the same key on every call. */
  send: () => Promise<Exchange>;
}

/**
 * A check of recalibration run on a private copy of main, owned by the team-plan caller (recalibration
 * changes members, so never the target's own Audience); it ends quietly where no copy can be made.
 */
export function sandboxCheck<const R extends RuleId>(
  name: string,
  rules: readonly R[],
  run: (ctx: CheckContext<R>, sandbox: Sandbox) => Promise<void>,
) {
  return check(name, rules, {
    needs: { roles: ["teammate"], audiences: ["main"] },
    mutates: true,
    concurrent: true,
    async run(ctx) {
      const tag = name.replace(/\W+/g, "-");
      const copy = await teammateCopy(ctx, tag);
      if (copy.status !== 201)
        return ctx.report({
          rule: rules[0] as R,
          message: `the teammate copying main (a collaborator on a team plan) answered ${copy.status}, not 201: no copy to recalibrate`,
          exchange: copy,
        });
      const audienceId = copy.body.data.id as string;
      const key = fresh(tag);
      const send = () =>
        ctx.call({
          op: "recalibrateAudience",
          params: { audienceId },
          as: ctx.as("teammate"),
          json: { instruction: "Rebalance slightly toward larger companies" },
          headers: { "x-service-idempotency-key": key },
        });
      await run(ctx, { audienceId, send });
    },
  });
}

export const recalibrateReplay = sandboxCheck(
  "domain/recalibrate-replay",
  ["recalibrate/replay"],
  async (ctx, { audienceId, send }) => {
    const first = await send();
    ctx.requireStatus(first, 202, "recalibrate/replay", "a recalibration");
    const opId = first.body?.data?.operation?.id;
    let last: Exchange = first;
    let finished: string | null = null;
    const done = await ctx.waitUntil(
      async () => {
        last = await send();
        if (last.status === 200) return true;
        // The operation's own status is the oracle a deployment has: once it has finished, a replay of the
        // key must say so instead of accepting the work again.
        if (finished) return true;
        const status = await ctx.call({
          op: "getRecalibrationOperation",
          params: { audienceId, operationId: String(opId) },
          as: ctx.as("teammate"),
        });
        const now = status.body?.data?.operation?.status;
        if (now === "completed" || now === "failed") finished = now;
        return false;
      },
      3_000,
      "recalibration",
    );
    if (finished && last.status !== 200) {
      ctx.expect(
        false,
        "recalibrate/replay",
        `the operation is ${finished}, yet a replay of its key still answers ${last.status}`,
        last,
      );
      return;
    }
    if (!done)
      return ctx.outOfTime(
        "recalibrate/replay",
        `the replay never answered 200 (last ${last.status})`,
        last,
        "recalibration",
      );
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
);

export const pendingRecalibrations = sandboxCheck(
  "limits/pending-recalibrations",
  ["recalibrate/pending-limit"],
  async (ctx, { audienceId }) => {
    const answers: Exchange[] = [];
    for (let i = 0; i <= limits().pendingRecalibrations; i++) {
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
      accepted === limits().pendingRecalibrations,
      "recalibrate/pending-limit",
      `${accepted} of ${limits().pendingRecalibrations + 1} immediate recalibrations were accepted, not ${limits().pendingRecalibrations}`,
      answers.find((a) => a.status !== 202) ?? last,
    );
    ctx.expectCode(last, 409, "RECALIBRATION_IN_PROGRESS", "recalibrate/pending-limit", "the eleventh");
    ctx.coverage.limit("recalibrateAudience:x-max-pending");
  },
);

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
      const ex = await recalibrate(ctx, audienceId, ctx.as(role), {
        instruction: "Add more people from large companies",
      });
      ctx.expectStatus(
        ex,
        404,
        "recalibrate/owner-only",
        `${role}, who may read the Audience, recalibrating`,
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
