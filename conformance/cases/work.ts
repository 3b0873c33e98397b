/**
 * What an Audience is worked on, case by case: its progress read by every account (readiness against its
 * rows); exports by every account, every kind with every format it offers and the one it does not, the
 * validation report without edit rights and without a scored validation; recalibration refused to everyone
 * but the owner, its payload's refusals and size, and its operation read through its own Audience and
 * through another.
 */
import { limits } from "../lib/description/contract.ts";
import type { Role } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";
import { padded } from "../lib/running/helpers.ts";
import type { Answer, Case, CaseWorld, Later } from "./case.ts";
import {
  coded,
  fixedRequest,
  is,
  malformedAudienceId,
  NOBODY,
  ok,
  onAud,
  oneOf,
  ownerOn,
  PRESENT,
  refused,
} from "./case.ts";
import { canView, EVERYONE, isCollaborator, relation } from "./cast.ts";
import { copyOf, REBALANCE, recalibrateCopy, refusedStep } from "./given.ts";
import { viewerRead } from "./viewers.ts";

const NOT_FOUND = "Audience not found";

// ---- progress ----

const readinessAgrees = {
  holds: (v: unknown, body: unknown) => {
    const r = v as { total?: number; failed?: number; ready?: number; training?: number };
    const members = (body as { data?: { members?: unknown[] } })?.data?.members ?? [];
    return (
      r?.total === members.length && r.failed === 0 && (r.ready ?? 0) + (r.training ?? 0) <= (r.total ?? 0)
    );
  },
  says: "does not agree with the member rows (total, failed always 0, ready and training within the total)",
  breaks: (v: unknown) => ({ ...(v as object), failed: 1 }),
} as const;

const progress = (role: Role, handle: string): Case =>
  viewerRead({
    op: "getAudienceProgress",
    role,
    handle,
    rule: "progress/readiness",
    seen: "read",
    answer: (w) => [ok(200, { "data.audienceId": is(w.aud(handle)), "data.readiness": readinessAgrees })],
  });

export const PROGRESS_CASES: Case[] = [
  ...EVERYONE.flatMap((r) => ["main", "private", "public"].map((h) => progress(r, h))),
  fixedRequest(
    "getAudienceProgress",
    "owner",
    "ids/unknown-404",
    "an ID that is no UUID names nothing (404)",
    {
      params: { audienceId: "not-an-audience" },
    },
    [refused(404)],
  ),
];

// ---- exports ----

const OFFERED = {
  brief: ["pdf", "md", "markdown", "docx", "pptx"],
  validation_report: ["pdf", "md", "markdown", "docx", "xlsx"],
};
const NOT_OFFERED = { brief: "xlsx", validation_report: "pptx" };

function exportAs(
  role: Role,
  handle: string,
  body: Record<string, unknown>,
  what: string,
  expect: Answer[],
  rule: Case["rule"] = "exports/kinds",
): Case {
  return {
    id: `exportAudience ${role} on ${handle}: ${what}`,
    rule,
    op: "exportAudience",
    as: role,
    request: onAud(handle, { json: body }),
    expect,
  };
}

export const EXPORT_CASES: Case[] = [
  ...EVERYONE.map((r) =>
    exportAs(
      r,
      "main",
      {},
      canView(relation(r, "main")) ? "a brief" : "404, hidden",
      canView(relation(r, "main")) ? [ok(200)] : [refused(404, NOT_FOUND)],
      canView(relation(r, "main")) ? "exports/job" : "access/hidden-as-404",
    ),
  ),
  ...(["brief", "validation_report"] as const).flatMap((kind) => [
    ...OFFERED[kind].map((format) =>
      exportAs("owner", "main", { kind, format }, `${kind} as ${format}`, [ok(200)]),
    ),
    exportAs(
      "owner",
      "main",
      { kind, format: NOT_OFFERED[kind] },
      `${kind} as ${NOT_OFFERED[kind]}, not offered`,
      [refused(400)],
    ),
  ]),
  ...(["admin", "member", "teammate", "studyViewer"] as const).map((r) =>
    exportAs(
      r,
      "main",
      { kind: "validation_report", format: "pdf" },
      isCollaborator(relation(r, "main"))
        ? "a validation report (edit access)"
        : "a validation report without edit access",
      isCollaborator(relation(r, "main")) ? [ok(200)] : [refused(404)],
    ),
  ),
  exportAs(
    "outsider",
    "public",
    { kind: "validation_report" },
    "a validation report of an Audience it only views",
    [refused(404), coded(409, "VALIDATION_REPORT_UNAVAILABLE")],
  ),
  exportAs(
    "owner",
    "private",
    { kind: "validation_report", format: "pdf" },
    "a validation report with no scored validation",
    [coded(409, "VALIDATION_REPORT_UNAVAILABLE")],
  ),
  exportAs(
    "owner",
    "main",
    { format: "gif" },
    "a format no kind offers",
    [refused(400)],
    "input/invalid-400",
  ),
  exportAs(
    "owner",
    "main",
    { kind: "summary" },
    "a kind that does not exist",
    [refused(400)],
    "input/invalid-400",
  ),
  {
    id: "getExportStatus owner on private: a validation report with no scored validation is unavailable",
    rule: "exports/kinds",
    op: "getExportStatus",
    as: "owner",
    request: onAud("private", { query: { kind: "validation_report" } }),
    expect: [ok(200, { "data.status": is("unavailable") })],
  },
  ...EVERYONE.filter((r) => !canView(relation(r, "main"))).map(
    (r): Case => ({
      id: `getExportStatus ${r} on main: 404, hidden`,
      rule: "access/hidden-as-404",
      op: "getExportStatus",
      as: r,
      request: onAud("main"),
      expect: [refused(404)],
    }),
  ),
  ...[
    ["a kind that does not exist", { kind: "summary" }],
    ["a format that does not exist", { format: "gif" }],
  ].map(([what, query]) =>
    ownerOn("main", "getExportStatus", "input/invalid-400", what as string, {
      request: onAud("main", { query: query as Record<string, string> }),
      expect: [refused(400)],
    }),
  ),
  {
    id: "downloadExport outsider on main: 404, hidden",
    rule: "access/hidden-as-404",
    op: "downloadExport",
    as: "outsider",
    request: onAud("main"),
    expect: [refused(404)],
  },
];

// ---- recalibration ----

export const RECALIBRATION_CASES: Case[] = [
  ...EVERYONE.filter((r) => r !== "owner").map(
    (r): Case => ({
      id: `recalibrateAudience ${r} on main: the owner alone (404, nothing queued)`,
      rule: "recalibrate/owner-only",
      op: "recalibrateAudience",
      as: r,
      changes: "main",
      request: onAud("main", { json: REBALANCE }),
      expect: [refused(404, NOT_FOUND)],
    }),
  ),
  ...[
    ["deepen that is not an object", { deepen: "yes" }, ["Invalid recalibrate payload"]],
    [
      "distributions that are not an object",
      { distributions: 5 },
      ["Invalid distributions payload", "Invalid recalibrate payload"],
    ],
    ["a body that is a list", [REBALANCE], ["Invalid recalibrate payload"]],
  ].map(
    ([what, json, words]): Case => ({
      id: `recalibrateAudience owner on main: ${what}`,
      rule: "input/invalid-400",
      op: "recalibrateAudience",
      as: "owner",
      changes: "main",
      request: onAud("main", { json }),
      expect: [refused(400, words as string[])],
    }),
  ),
  ...(
    [
      [
        "its own Audience's path, by its owner",
        "teammate",
        "copy",
        [ok(200, { "data.operation.id": PRESENT })],
      ],
      ["main's path (another Audience)", "teammate", "main", [refused(404)]],
      ["its own path, by someone who cannot see the copy", "outsider", "copy", [refused(404)]],
    ] as const
  ).map(
    ([what, role, through, expect]): Case => ({
      id: `getRecalibrationOperation ${role}: an operation read through ${what}`,
      rule: "recalibrate/status-url",
      op: "getRecalibrationOperation",
      as: role,
      given: (ctx, w, later) => recalibratedCopy(ctx, w, later),
      request: (w) => ({
        params: {
          audienceId: through === "copy" ? (w.made.copy as string) : w.aud("main"),
          operationId: w.made.operationId as string,
        },
      }),
      expect: [...expect],
    }),
  ),
  {
    id: "recalibrateAudience owner on atCap: an additive instruction at the member cap is PLAN_LIMIT",
    rule: "members/plan-cap",
    op: "recalibrateAudience",
    as: "owner",
    changes: "atCap",
    request: onAud("atCap", {
      json: { instruction: "Add 5 more remote engineering managers" },
    }),
    expect: (w) => {
      const plan = w.info.plans.owner ?? "premium";
      const answer = coded(403, "PLAN_LIMIT", {
        "data.currentPlan": is(plan),
        "data.limitType": oneOf("groupMembers", "sparks"),
      });
      return [plan === "premium" ? { ...answer, message: "Individual plan limit reached" } : answer];
    },
  },
  malformedAudienceId("getRecalibrationOperation", "ids/malformed-400", undefined, { operationId: NOBODY }),
  {
    id: "recalibrateAudience owner on main: a body one byte past 32 MiB is 413",
    rule: "input/body-size-413",
    op: "recalibrateAudience",
    as: "owner",
    changes: "main",
    request: onAud("main", {
      body: padded(JSON.stringify(REBALANCE), limits().recalibrateBody + 1),
      headers: { "content-type": "application/json" },
    }),
    expect: [refused(413)],
  },
  {
    id: "getRecalibrationOperation owner on main: an operation ID that names nothing",
    rule: "recalibrate/status-url",
    op: "getRecalibrationOperation",
    as: "owner",
    request: (w) => ({ params: { audienceId: w.aud("main"), operationId: NOBODY } }),
    expect: [refused(404)],
  },
];

/** A teammate's copy of main with one recalibration accepted: its operation's ID. */
async function recalibratedCopy(ctx: CheckContext, w: CaseWorld, later: Later) {
  const copy = await copyOf(ctx, w, "main", "teammate", later);
  if ("unmade" in copy) return copy;
  const ex = await recalibrateCopy(ctx, copy, REBALANCE);
  if (ex.status !== 202) return refusedStep(ex, 202, "the copy's owner asking for a recalibration");
  const operationId = ex.body?.data?.operation?.id;
  return typeof operationId === "string"
    ? { made: { ...copy.made, operationId } }
    : { unmade: "the 202 named no operation (a research job instead)" };
}
