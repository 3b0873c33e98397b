/**
 * Cases whose world is made by earlier requests and by time: a Formation's build finished and read again,
 * deleted and read; a preview that persists nothing; an export's documents; a recalibration replayed once
 * terminal, its completed receipt, the Audience's calibration flag while it waits; Go deeper accepted and
 * queued behind itself; a checkout session replayed under its key; an Audience's deletion cascading to the
 * Minds it alone held; members added and every count following; a removed collaborator losing access.
 */
import type { CheckContext } from "../lib/running/context.ts";
import { hypothesis } from "../lib/running/helpers.ts";
import {
  type Case,
  type CaseWorld,
  type Field,
  is,
  type Later,
  type Made,
  ok,
  oneOf,
  PRESENT,
  refused,
} from "./case.ts";
import { copyOf, formationBy, keepAudience, refusedStep } from "./given.ts";

const notNull: Field = {
  holds: (v) => v !== null && v !== undefined,
  says: "is null or absent",
  breaks: () => null,
};
const ASK = { instruction: "Rebalance slightly toward larger companies" };

/** Waits for `read` to say `done` (the virtual clock on the simulator, polling against a deployment). */
async function settled(
  ctx: CheckContext,
  read: () => Promise<boolean>,
  machine?: "formationBuild" | "recalibration" | "export" | "research",
) {
  return ctx.waitUntil(read, 1_000, machine);
}

/** A Formation the owner made on main, its build finished (ready or failed). */
async function builtFormation(ctx: CheckContext, w: CaseWorld, later: Later): Promise<Made> {
  const m = await formationBy(ctx, w, "main", "owner", later);
  if ("unmade" in m) return m;
  const params = { audienceId: w.aud("main"), formationId: m.made.formationId as string };
  const done = await settled(
    ctx,
    async () => {
      const ex = await ctx.call({ op: "getFormation", params, as: ctx.as("owner") });
      return ex.body?.data?.status !== "building";
    },
    "formationBuild",
  );
  return done ? m : { unmade: "the Formation's build did not finish within its deadline" };
}

const subgroupIds = (ids: readonly string[]): Field => ({
  holds: (v) => Array.isArray(v) && v.length === ids.length && v.every((g, i) => g?.id === ids[i]),
  says: `are not the subgroups ${ids.join(", ")} it was made from`,
  breaks: (v) => (Array.isArray(v) ? v.slice(1) : []),
});

const lacksId = (id: string): Field => ({
  holds: (v) => Array.isArray(v) && !v.some((f) => f?.id === id),
  says: `lists the deleted Formation ${id}`,
  breaks: (v) => (Array.isArray(v) ? [...v, { id }] : [{ id }]),
});

const FORMATIONS: Case[] = [
  {
    id: "getFormation owner: a finished build is ready (progress null) or failed, its hypothesis kept",
    rule: "formations/lifecycle",
    op: "getFormation",
    as: "owner",
    given: builtFormation,
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: w.made.formationId as string } }),
    expect: [
      ok(200, {
        "data.status": is("ready"),
        "data.progress": is(null),
        "data.hypothesis.subgroups": subgroupIds(["case0", "case1"]),
      }),
      ok(200, { "data.status": is("failed"), "data.hypothesis.subgroups": subgroupIds(["case0", "case1"]) }),
    ],
  },
  {
    id: "recomputeFormation owner: a finished Formation goes back to building (or finishes inline)",
    rule: "formations/lifecycle",
    op: "recomputeFormation",
    as: "owner",
    given: builtFormation,
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: w.made.formationId as string } }),
    expect: (w) => [
      ok(200, { "data.id": is(w.made.formationId), "data.status": oneOf("building", "ready", "failed") }),
    ],
    after: [
      {
        what: "it keeps its hypothesis",
        op: "getFormation",
        as: "owner",
        request: (w) => ({
          params: { audienceId: w.aud("main"), formationId: w.made.formationId as string },
        }),
        expect: [ok(200, { "data.hypothesis.subgroups": subgroupIds(["case0", "case1"]) })],
      },
    ],
  },
  {
    id: "listFormations owner: a deleted Formation is not listed (soft delete)",
    rule: "formations/lifecycle",
    op: "listFormations",
    as: "owner",
    given: async (ctx, w, later) => {
      const m = await formationBy(ctx, w, "main", "owner", later);
      if ("unmade" in m) return m;
      const params = { audienceId: w.aud("main"), formationId: m.made.formationId as string };
      const gone = await ctx.call({ op: "deleteFormation", params, as: ctx.as("owner") });
      return gone.status === 204 ? m : refusedStep(gone, 204, "the owner deleting its Formation");
    },
    request: (w) => ({ params: { audienceId: w.aud("main") } }),
    expect: (w) => [ok(200, { data: lacksId(w.made.formationId as string) })],
  },
  {
    id: "previewFormation owner on main: a preview persists nothing",
    rule: "preview/persists-nothing",
    op: "previewFormation",
    as: "owner",
    mutates: false,
    given: async (ctx, w) => {
      const before = await ctx.call({
        op: "listFormations",
        params: { audienceId: w.aud("main") },
        as: ctx.as("owner"),
        query: { limit: 100 },
      });
      if (before.status !== 200) return refusedStep(before, 200, "listing main's Formations");
      return { made: { total: before.body?.pagination?.total } };
    },
    request: (w) => ({
      params: { audienceId: w.aud("main") },
      json: { priorHypothesis: hypothesis(2, "pv") },
      headers: { accept: "application/json" },
    }),
    expect: [ok(200, { success: is(true) })],
    after: [
      {
        what: "main's Formations, listed again",
        op: "listFormations",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.aud("main") }, query: { limit: 100, offset: 0 } }),
        expect: (w) => [ok(200, { "pagination.total": is(w.made.total) })],
      },
    ],
  },
];

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
    request: (w) => ({
      params: { audienceId: w.aud("main") },
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
    request: (w) => ({ params: { audienceId: w.aud("main") }, query: { format: "md" } }),
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
    json: ASK,
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
    "data.operation.result": notNull,
    "data.operation.error": is(null),
  }),
  ok(200, { "data.operation.status": is("failed"), "data.operation.error": notNull }),
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
      json: ASK,
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
    request: (w) => ({
      params: { audienceId: w.made.copy as string },
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
      const first = await ctx.call({
        op: "recalibrateAudience",
        params: { audienceId: copy.made.copy as string },
        as: ctx.as("teammate"),
        json: { deepen: { topics: ["pricing"] } },
      });
      return first.status === 202 ? copy : refusedStep(first, 202, "the first Go deeper");
    },
    request: (w) => ({
      params: { audienceId: w.made.copy as string },
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
        const ex = await ctx.call({
          op: "recalibrateAudience",
          params: { audienceId: copy.made.copy as string },
          as: ctx.as("teammate"),
          json: { instruction: `Rebalance, step ${i}` },
        });
        if (ex.status !== 202) return refusedStep(ex, 202, `pending edit ${i + 1} of 10`);
      }
      return copy;
    },
    request: (w) => ({
      params: { audienceId: w.made.copy as string },
      json: { instruction: "Rebalance, once more" },
    }),
    expect: [{ status: 409, code: "RECALIBRATION_IN_PROGRESS" }],
  },
];

// ---- checkout, cascades, counts, removals ----

const holdsMind = (mind: string): Field => ({
  holds: (v) => Array.isArray(v) && v.some((m) => m?.id === mind),
  says: `lacks the Mind ${mind}, which it holds`,
  breaks: (v) => (Array.isArray(v) ? v.filter((m) => m?.id !== mind) : []),
});

const rowsInclude = (mind: string, n: number): Field => ({
  holds: (v) => Array.isArray(v) && v.length === n && v.some((r) => r?.mindId === mind),
  says: `are not ${n} rows with the added Mind ${mind}`,
  breaks: (v) => (Array.isArray(v) ? v.filter((r) => r?.mindId !== mind) : []),
});

const OTHERS: Case[] = [
  {
    id: "createCheckoutSession owner: the same Idempotency-Key and body return the same session",
    rule: "checkout/idempotency",
    op: "createCheckoutSession",
    as: "owner",
    given: async (ctx, w, later) => {
      const key = `caseIdem${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const p = w.price("credits");
      const json = { line_items: [{ id: p.id }], currency: p.currency, capabilities: {} };
      const ex = await ctx.call({
        op: "createCheckoutSession",
        as: ctx.as("owner"),
        json,
        headers: { "idempotency-key": key },
      });
      if (ex.status !== 201) return refusedStep(ex, 201, "the first session under the key");
      later(() =>
        ctx.call({ op: "cancelCheckoutSession", params: { id: ex.body?.id }, as: ctx.as("owner") }),
      );
      return { made: { key, id: ex.body?.id } };
    },
    request: (w) => ({
      json: {
        line_items: [{ id: w.price("credits").id }],
        currency: w.price("credits").currency,
        capabilities: {},
      },
      headers: { "idempotency-key": w.made.key as string },
    }),
    expect: (w) => [ok(200, { id: is(w.made.id) }), ok(201, { id: is(w.made.id) })],
  },
  {
    id: "deleteAudience owner on its copy: the Minds only the copy held go with it, the others stay",
    rule: "audience/delete-cascade",
    op: "deleteAudience",
    as: "owner",
    // Two copies of private (the owner's own Minds): one Mind of the first is added to the second too.
    given: async (ctx, w, later) => {
      const a = await copyOf(ctx, w, "private", "owner", later);
      if ("unmade" in a) return a;
      const b = await ctx.call({
        op: "duplicateAudience",
        params: { audienceId: w.aud("private") },
        as: ctx.as("owner"),
        json: { name: "Case copy kept" },
      });
      if (b.status !== 201) return refusedStep(b, 201, "a second copy of private");
      const keep = b.body?.data?.id as string;
      later(() => ctx.call({ op: "deleteAudience", params: { audienceId: keep }, as: ctx.as("owner") }));
      const detail = await ctx.call({
        op: "getAudience",
        params: { audienceId: a.made.copy as string },
        as: ctx.as("owner"),
      });
      const [shared, alone] = ((detail.body?.data?.minds ?? []) as { id: string }[]).map((m) => m.id);
      if (!shared || !alone) return { unmade: "the copy lists fewer than two members" };
      const add = await ctx.call({
        op: "addMembers",
        params: { audienceId: keep },
        as: ctx.as("owner"),
        json: { mindId: shared },
      });
      if (add.status !== 200)
        return refusedStep(add, 200, "the owner adding the first copy's Mind to the second");
      return { made: { copy: a.made.copy, keep, shared, alone } };
    },
    request: (w) => ({ params: { audienceId: w.made.copy as string } }),
    expect: [ok(204)],
    after: [
      {
        what: "the Mind only the deleted copy held, added again",
        op: "addMembers",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.made.keep as string }, json: { mindId: w.made.alone } }),
        expect: [refused(404, "One or more Minds not found or not accessible")],
      },
      {
        what: "the Mind another Audience holds, read there",
        op: "getAudience",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.made.keep as string } }),
        expect: (w) => [ok(200, { "data.minds": holdsMind(w.made.shared as string) })],
      },
    ],
  },
  {
    id: "addMembers owner on private: every count and list follows the added Mind",
    rule: "members/counts-follow",
    op: "addMembers",
    as: "owner",
    changes: "private",
    given: (ctx, w, later) => keepAudience(ctx, w, "private", later),
    request: (w) => ({ params: { audienceId: w.aud("private") }, json: { mindId: w.mind("ownLoose") } }),
    expect: [ok(200, { "data.added": is(1) })],
    after: [
      {
        what: "its progress",
        op: "getAudienceProgress",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.aud("private") } }),
        expect: (w) => {
          const n = (w.made.members as string[]).length + 1;
          return [
            ok(200, { "data.readiness.total": is(n), "data.members": rowsInclude(w.mind("ownLoose"), n) }),
          ];
        },
      },
      {
        what: "its filter attributes",
        op: "getFilterAttributes",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.aud("private") } }),
        expect: (w) => [ok(200, { "data.totalMinds": is((w.made.members as string[]).length + 1) })],
      },
      {
        what: "its detail",
        op: "getAudience",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.aud("private") }, query: { members: "preview" } }),
        expect: (w) => [ok(200, { "data.mindCount": is((w.made.members as string[]).length + 1) })],
      },
    ],
  },
  {
    id: "removeCollaborator owner on main: the member removed, who loses the Audience at once",
    rule: "collaborators/removal-revokes",
    op: "removeCollaborator",
    as: "owner",
    simulatorOnly:
      "the API cannot invite anyone back: only a simulator, rebuilt afterwards, may lose its member",
    resets: true,
    given: async (ctx, _w, later) => {
      later(() => ctx.target.rebuild());
      return { made: {} };
    },
    request: (w) => ({ params: { audienceId: w.aud("main"), userId: w.user("member") } }),
    expect: [ok(200, { "data.success": is(true) })],
    after: [
      {
        what: "the removed member reads main",
        op: "getAudience",
        as: "member",
        request: (w) => ({ params: { audienceId: w.aud("main") }, query: { members: "preview" } }),
        expect: [refused(404, "Audience not found")],
      },
      {
        what: "removing them again",
        op: "removeCollaborator",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.aud("main"), userId: w.user("member") } }),
        expect: [refused(404)],
      },
    ],
  },
];

export const LIFECYCLE_CASES: Case[] = [...FORMATIONS, ...EXPORTS, ...RECALIBRATION, ...OTHERS];
