/**
 * Cases whose world time makes: an export's documents once its job has run; a recalibration's completed
 * receipt and its replay once terminal, the Audience's calibration flag while it waits; Go deeper accepted
 * and queued behind research that runs; an eleventh pending edit.
 */
import type { CheckContext } from "../lib/running/context.ts";
import type { Case, CaseWorld, Field, Later, Made } from "./case.ts";
import { is, NOT_NULL, ok, onAud, onMade, PRESENT } from "./case.ts";
import { copyOf, REBALANCE, recalibrateCopy, refusedStep, settled } from "./given.ts";

// ---- exports ----

/** An export of `kind` as Markdown of `handle`, asked for and waited for until it downloads. */
function exportReady(kind: string): NonNullable<Case["given"]> {
  return async (ctx, w) => {
    const params = { audienceId: w.aud("main") };
    const query = { kind, format: "md" };
    const ask = await ctx.call({ op: "exportAudience", params, as: ctx.as("owner"), json: query });
    if (ask.status !== 200) return refusedStep(ask, 200, `exporting main's ${kind}`);
    const done = await settled(
      ctx,
      async () => {
        const s = await ctx.call({ op: "getExportStatus", params, as: ctx.as("owner"), query });
        return !["queued", "running"].includes(s.body?.data?.status);
      },
      "export",
    );
    return done ? { made: {} } : { unmade: `main's ${kind} did not finish within its deadline` };
  };
}

const mentions = (...words: string[]): Field => ({
  holds: (v) => typeof v === "string" && words.every((x) => v.toLowerCase().includes(x.toLowerCase())),
  says: `does not speak of ${words.join(", ")}`,
  breaks: (v) => (typeof v === "string" ? v.replace(new RegExp(words.at(-1) as string, "gi"), "") : ""),
});

const nonEmpty: Field = {
  holds: (v) => typeof v === "string" && v.trim() !== "",
  says: "is empty",
  breaks: () => "",
};

const EXPORTS: Case[] = [
  {
    id: "downloadExport owner on main: the validation report holds what the description lists",
    rule: "exports/job",
    also: ["exports/kinds"],
    op: "downloadExport",
    as: "owner",
    given: exportReady("validation_report"),
    request: onAud("main", {
      query: { kind: "validation_report", format: "md" },
    }),
    expect: [
      {
        status: 200,
        contentType: "text/markdown",
        fields: { "": mentions("overall score", "95%", "answer share", "composition", "provenance") },
      },
    ],
  },
  {
    id: "downloadExport owner on main: the brief, asked for with no kind, downloads",
    rule: "exports/job",
    op: "downloadExport",
    as: "owner",
    given: exportReady("brief"),
    request: onAud("main", { query: { format: "md" } }),
    expect: [{ status: 200, contentType: "text/markdown", fields: { "": nonEmpty } }],
  },
];

// ---- recalibration and research ----

/** A teammate's copy of main, one recalibration asked for under a key: the receipt, waited for if `finish`. */
async function recalibrated(ctx: CheckContext, w: CaseWorld, later: Later, finish: boolean): Promise<Made> {
  const copy = await copyOf(ctx, w, "main", "teammate", later);
  if ("unmade" in copy) return copy;
  const audienceId = copy.made.copy as string;
  const key = `case-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const ex = await ctx.call({
    op: "recalibrateAudience",
    params: { audienceId },
    as: ctx.as("teammate"),
    json: REBALANCE,
    headers: { "x-service-idempotency-key": key },
  });
  if (ex.status !== 202) return refusedStep(ex, 202, "a recalibration of the teammate's copy");
  const operationId = ex.body?.data?.operation?.id as string | undefined;
  if (!operationId) return { unmade: "the 202 named no operation" };
  const made = { ...copy.made, operationId, key };
  if (!finish) return { made };
  const done = await settled(
    ctx,
    async () => {
      const op = await ctx.call({
        op: "getRecalibrationOperation",
        params: { audienceId, operationId },
        as: ctx.as("teammate"),
      });
      return ["completed", "failed"].includes(op.body?.data?.operation?.status);
    },
    "recalibration",
  );
  return done ? { made } : { unmade: "the recalibration did not finish within its deadline" };
}

const terminal = [
  ok(200, {
    "data.operation.status": is("completed"),
    "data.operation.result": NOT_NULL,
    "data.operation.error": is(null),
  }),
  ok(200, { "data.operation.status": is("failed"), "data.operation.error": NOT_NULL }),
];

const RECALIBRATION: Case[] = [
  {
    id: "getRecalibrationOperation teammate: a finished operation holds its result (or its error)",
    rule: "recalibrate/status-url",
    op: "getRecalibrationOperation",
    as: "teammate",
    given: (ctx, w, later) => recalibrated(ctx, w, later, true),
    request: (w) => ({
      params: { audienceId: w.made.copy as string, operationId: w.made.operationId as string },
    }),
    expect: terminal,
  },
  {
    id: "recalibrateAudience teammate: the same key after the operation ended replays its receipt (200)",
    rule: "recalibrate/replay",
    op: "recalibrateAudience",
    as: "teammate",
    given: (ctx, w, later) => recalibrated(ctx, w, later, true),
    request: (w) => ({
      params: { audienceId: w.made.copy as string },
      json: REBALANCE,
      headers: { "x-service-idempotency-key": w.made.key as string },
    }),
    expect: (w) =>
      terminal.map((a) => ({ ...a, fields: { ...a.fields, "data.operation.id": is(w.made.operationId) } })),
  },
  {
    id: "getAudience teammate: calibration.active while its recalibration waits",
    rule: "recalibrate/calibration-active",
    op: "getAudience",
    as: "teammate",
    simulatorOnly:
      "the operation must still wait when the Audience is read: only a clock that stands still holds it there",
    given: (ctx, w, later) => recalibrated(ctx, w, later, false),
    request: (w) => ({ params: { audienceId: w.made.copy as string }, query: { members: "preview" } }),
    expect: [ok(200, { "data.calibration.active": is(true) })],
  },
  {
    id: "recalibrateAudience teammate: Go deeper is accepted at once with its research job",
    rule: "research/stages",
    op: "recalibrateAudience",
    as: "teammate",
    given: (ctx, w, later) => copyOf(ctx, w, "main", "teammate", later),
    request: onMade("audienceId", "copy", {
      json: { deepen: { topics: ["buying committees"] } },
    }),
    expect: [
      ok(202, {
        "data.research.jobId": PRESENT,
        "data.research.phase": is("researching"),
        "data.research.status": is("queued"),
        "data.research.stage": is("researching"),
        "data.progressUrl": PRESENT,
      }),
    ],
  },
  {
    id: "recalibrateAudience teammate: Go deeper while research runs is queued behind it",
    rule: "research/stages",
    op: "recalibrateAudience",
    as: "teammate",
    simulatorOnly:
      "the first research must still run when the second is asked for: only a clock that stands still holds it there",
    given: async (ctx, w, later) => {
      const copy = await copyOf(ctx, w, "main", "teammate", later);
      if ("unmade" in copy) return copy;
      const first = await recalibrateCopy(ctx, copy, { deepen: { topics: ["pricing"] } });
      return first.status === 202 ? copy : refusedStep(first, 202, "the first Go deeper");
    },
    request: onMade("audienceId", "copy", {
      json: { deepen: { topics: ["procurement"] } },
    }),
    expect: [ok(202, { "data.research.queuedBehindRunningResearch": is(true) })],
  },
  {
    id: "recalibrateAudience teammate: an eleventh pending edit is refused (RECALIBRATION_IN_PROGRESS)",
    rule: "recalibrate/pending-limit",
    op: "recalibrateAudience",
    as: "teammate",
    simulatorOnly:
      "ten edits must still wait when the eleventh is sent: only a clock that stands still holds them",
    given: async (ctx, w, later) => {
      const copy = await copyOf(ctx, w, "main", "teammate", later);
      if ("unmade" in copy) return copy;
      for (let i = 0; i < 10; i++) {
        const ex = await recalibrateCopy(ctx, copy, { instruction: `Rebalance, step ${i}` });
        if (ex.status !== 202) return refusedStep(ex, 202, `pending edit ${i + 1} of 10`);
      }
      return copy;
    },
    request: onMade("audienceId", "copy", {
      json: { instruction: "Rebalance, once more" },
    }),
    expect: [{ status: 409, code: "RECALIBRATION_IN_PROGRESS" }],
  },
];

export const LATER_EXPORT_CASES: Case[] = EXPORTS;
/** On the teammate's copies of their own: a group that may wait beside the other checks. */
export const LATER_RECALIBRATION_CASES: Case[] = RECALIBRATION;
