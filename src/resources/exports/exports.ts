/**
 * Audience exports (description, "Audiences: exports", "Export status", and the 409
 * `VALIDATION_REPORT_UNAVAILABLE` of "Errors").
 *
 * Kind `brief` (default) offers pdf, md, docx, pptx and is open to every viewer of the Audience; kind
 * `validation_report` offers pdf, md, docx, xlsx, needs edit access (others get the 404 of a missing
 * Audience) and at least one scored validation (409 otherwise; export-status says `unavailable`).
 *
 * One artifact is kept per (Audience, kind, format). POST returns it at once while it is still current (the
 * document it would hold now is the one it holds) unless `force` is set; otherwise it queues a job on the
 * virtual clock: `queued`, `running` after EXPORT_START_DELAY_MS, `ready` EXPORT_RUN_MS later. The job
 * snapshots the document when it starts; the bytes are rendered from that snapshot on first need and are
 * the same every time, so any host can re-render them.
 */

import type { ValidationIssue } from "../../contract/validate.ts";
import { badRequest, conflict, type ErrorCode, notFound } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import { type AudienceRecord, type State, table } from "../../core/world/state.ts";
import { isCollaborator, viewable } from "../access.ts";
import { membersOf } from "../audiences/audience-view.ts";
import { iso } from "../time.ts";
import { exportsView } from "./dashboard.ts";
import type { DocumentInput, ExportFormat, ExportKind } from "./document.ts";
import { CONTENT_TYPES, canonicalFormat, exportFileName, FORMATS_BY_KIND } from "./document.ts";
import { buildExportDocument, documentFingerprint, renderDocument } from "./documents.ts";
import type { ExportRecord } from "./records.ts";
import { hasScoredValidation } from "./sections.ts";

export const EXPORT_START_JOB = "exports.start";
export const EXPORT_FINISH_JOB = "exports.finish";
/** Virtual time from request to the job starting (`queued` → `running`). */
export const EXPORT_START_DELAY_MS = 500;
/** Virtual time the job runs (`running` → `ready`): ready two seconds after the request. */
export const EXPORT_RUN_MS = 1_500;

export const UNAVAILABLE_MESSAGE = "No scored validation is available for this audience";
export const UNAVAILABLE_CODE: ErrorCode = "VALIDATION_REPORT_UNAVAILABLE";

interface JobPayload {
  key: string;
  jobId: string;
}

const exportsTable = (state: State) => table<ExportRecord>(state, "exports");
const keyOf = (audienceId: string, kind: ExportKind, format: ExportFormat) =>
  `${audienceId}/${kind}/${format}`;

/**
 * Rendered bytes by record, outside the JSON state: a restored state simply renders again. The job ID
 * guards against a forced re-export reusing the record while an older render is still cached.
 */
const rendered = new WeakMap<ExportRecord, { jobId: string; bytes: Promise<Uint8Array> }>();

async function artifactBytes(record: ExportRecord): Promise<Uint8Array> {
  const document = record.document;
  if (!document) throw new Error(`export ${record.jobId} has no document to render`);
  let entry = rendered.get(record);
  if (!entry || entry.jobId !== record.jobId) {
    const bytes = renderDocument(document, record.format);
    entry = { jobId: record.jobId, bytes };
    rendered.set(record, entry);
    bytes.catch(() => {
      if (rendered.get(record) === entry) rendered.delete(record);
    });
  }
  const jobId = record.jobId;
  const bytes = await entry.bytes;
  if (record.jobId === jobId) record.sizeBytes = bytes.byteLength;
  return bytes;
}

function documentInput(state: State, audience: AudienceRecord, generatedAt: number): DocumentInput {
  return { audience, members: membersOf(state, audience), generatedAt };
}

// ---------------------------------------------------------------------------------------------- access

const audienceIdOf = (ctx: RequestContext): string => ctx.params.audienceId ?? "";

/** Viewers may export the brief; the validation report needs edit access. Others get 404. */
function accessible(ctx: RequestContext, kind: ExportKind): AudienceRecord {
  const { audience, role } = viewable(ctx.state, audienceIdOf(ctx), ctx.caller);
  if (kind === "validation_report" && !isCollaborator(role)) throw notFound("Audience not found");
  return audience;
}

function offered(kind: ExportKind, format: ExportFormat, asRequested: string): void {
  if (!FORMATS_BY_KIND[kind].includes(format)) {
    throw badRequest(`Format ${asRequested} is not available for kind ${kind}`);
  }
}

/** Kind and format of export-status and export-download; the engine has checked them against the enums. */
/** What export-status and export-download are asked about (their shared query), checked, and its record. */
function queriedExport(ctx: RequestContext) {
  const { kind, format, asRequested } = queryTarget(ctx);
  const audience = accessible(ctx, kind);
  offered(kind, format, asRequested);
  return { kind, format, audience, record: exportsTable(ctx.state).get(keyOf(audience.id, kind, format)) };
}

function queryTarget(ctx: RequestContext): { kind: ExportKind; format: ExportFormat; asRequested: string } {
  const kind = (ctx.queryValues.kind as ExportKind | undefined) ?? "brief";
  const asRequested = (ctx.queryValues.format as string | undefined) ?? "pdf";
  const format = canonicalFormat(asRequested);
  if (!format) throw badRequest("Invalid export format");
  return { kind, format, asRequested };
}

// ---------------------------------------------------------------------------------------------- views

function urls(ctx: RequestContext, r: { audienceId: string; kind: ExportKind; format: ExportFormat }) {
  const query = `kind=${r.kind}&format=${r.format}`;
  const base = `${ctx.prefix}/audiences/${r.audienceId}`;
  return { downloadUrl: `${base}/export-download?${query}`, statusUrl: `${base}/export-status?${query}` };
}

/** The descriptor of an export job or artifact (the contract leaves its fields open). */
async function describe(ctx: RequestContext, record: ExportRecord, extra: Record<string, unknown> = {}) {
  const view: Record<string, unknown> = {
    kind: record.kind,
    format: record.format,
    status: record.status,
    ...extra,
    jobId: record.jobId,
    requestedAt: iso(record.requestedAt),
    fileName: record.fileName,
    contentType: CONTENT_TYPES[record.format],
    ...urls(ctx, record),
  };
  if (record.startedAt !== null) view.startedAt = iso(record.startedAt);
  if (record.status === "ready" && record.readyAt !== null) {
    view.readyAt = iso(record.readyAt);
    view.sizeBytes = (await artifactBytes(record)).byteLength;
    view.upToDate = isCurrent(ctx.state, record);
  }
  if (record.status === "failed") {
    if (record.failedAt !== null) view.failedAt = iso(record.failedAt);
    view.error = record.error;
  }
  return { data: view };
}

/** A ready artifact is current while the document it would hold now is the one it holds. */
function isCurrent(state: State, record: ExportRecord): boolean {
  const audience = state.audiences.get(record.audienceId);
  if (!audience || record.fingerprint === null) return false;
  return record.fingerprint === documentFingerprint(record.kind, documentInput(state, audience, 0));
}

// ---------------------------------------------------------------------------------------------- jobs

function queue(ctx: RequestContext, audience: AudienceRecord, kind: ExportKind, format: ExportFormat) {
  const key = keyOf(audience.id, kind, format);
  const record: ExportRecord = {
    audienceId: audience.id,
    kind,
    format,
    status: "queued",
    jobId: ctx.ids.uuid(),
    requestedBy: ctx.caller.id,
    requestedAt: ctx.clock.now(),
    startedAt: null,
    readyAt: null,
    failedAt: null,
    error: null,
    fileName: exportFileName(audience.name, kind, format),
    document: null,
    fingerprint: null,
    sizeBytes: null,
  };
  exportsTable(ctx.state).set(key, record);
  ctx.schedule(EXPORT_START_DELAY_MS, EXPORT_START_JOB, { key, jobId: record.jobId } satisfies JobPayload);
  return record;
}

/** The job's record, unless a forced re-export or a deletion has replaced it since. */
function jobRecord(s: Services, payload: unknown): ExportRecord | null {
  const { key, jobId } = payload as JobPayload;
  const record = exportsTable(s.state).get(key);
  return record && record.jobId === jobId ? record : null;
}

function startJob(s: Services, payload: unknown): void {
  const record = jobRecord(s, payload);
  if (record?.status !== "queued") return;
  const audience = s.state.audiences.get(record.audienceId);
  if (!audience) {
    exportsTable(s.state).delete((payload as JobPayload).key);
    return;
  }
  const now = s.clock.now();
  record.startedAt = now;
  if (record.kind === "validation_report" && !hasScoredValidation(audience)) {
    record.status = "failed";
    record.failedAt = now;
    record.error = UNAVAILABLE_MESSAGE;
    return;
  }
  const input = documentInput(s.state, audience, now);
  record.status = "running";
  record.document = buildExportDocument(record.kind, input);
  record.fingerprint = documentFingerprint(record.kind, input);
  record.fileName = exportFileName(audience.name, record.kind, record.format);
  s.schedule(EXPORT_RUN_MS, EXPORT_FINISH_JOB, payload);
}

function finishJob(s: Services, payload: unknown): void {
  const record = jobRecord(s, payload);
  if (record?.status !== "running") return;
  if (!s.state.audiences.has(record.audienceId)) {
    exportsTable(s.state).delete((payload as JobPayload).key);
    return;
  }
  record.status = "ready";
  record.readyAt = s.clock.now();
}

// ---------------------------------------------------------------------------------------------- routes

/**
 * The contract's enums name the field; the description's words say what is wrong. A format the contract
 * knows, asked of a kind that does not offer it (the schema's if/then), is said as such.
 */
function invalidExportBody(issues: ValidationIssue[], body: unknown) {
  const { kind = "brief", format } = (body ?? {}) as { kind?: unknown; format?: unknown };
  const known = typeof format === "string" && canonicalFormat(format) !== null;
  if (
    (kind === "brief" || kind === "validation_report") &&
    known &&
    !issues.some((i) => i.path === "/kind" || i.path === "/force")
  )
    return badRequest(`Format ${format} is not available for kind ${kind}`);
  if (issues.some((i) => i.path === "/format")) return badRequest("Invalid export format");
  if (issues.some((i) => i.path === "/kind")) return badRequest("Invalid export kind");
  if (issues.some((i) => i.path === "/force")) return badRequest("force must be a boolean");
  return badRequest("Request body must be a JSON object");
}

/** Bad `kind`/`format` query values get the same words as bad body values. */
const invalidQuery = (name: string) =>
  name === "kind"
    ? badRequest("Invalid export kind")
    : name === "format"
      ? badRequest("Invalid export format")
      : null;

const viewerOnly = (ctx: RequestContext): void => {
  viewable(ctx.state, audienceIdOf(ctx), ctx.caller);
};

export const exportsModule: ResourceModule = {
  view: exportsView,
  routes: {
    exportAudience: {
      authorize: viewerOnly,
      invalidBody: invalidExportBody,
      handler: async (ctx) => {
        const body = (ctx.body ?? {}) as { format?: string; kind?: ExportKind; force?: boolean };
        const kind = body.kind ?? "brief";
        const asRequested = body.format ?? "pdf";
        const format = canonicalFormat(asRequested);
        if (!format) throw badRequest("Invalid export format");
        const audience = accessible(ctx, kind);
        offered(kind, format, asRequested);
        if (kind === "validation_report" && !hasScoredValidation(audience)) {
          throw conflict(UNAVAILABLE_MESSAGE, { code: UNAVAILABLE_CODE });
        }
        const existing = exportsTable(ctx.state).get(keyOf(audience.id, kind, format));
        if (existing && body.force !== true) {
          // A job already under way answers for this request too.
          if (existing.status === "queued" || existing.status === "running") {
            return { status: 200, body: await describe(ctx, existing, { cached: false }) };
          }
          if (existing.status === "ready" && isCurrent(ctx.state, existing)) {
            return { status: 200, body: await describe(ctx, existing, { cached: true }) };
          }
        }
        const record = queue(ctx, audience, kind, format);
        return { status: 200, body: await describe(ctx, record, { cached: false }) };
      },
    },
    getExportStatus: {
      invalidParameter: invalidQuery,
      authorize: viewerOnly,
      handler: async (ctx) => {
        const { kind, format, audience, record } = queriedExport(ctx);
        if (kind === "validation_report" && !hasScoredValidation(audience) && record?.status !== "ready") {
          return {
            status: 200,
            body: {
              data: {
                kind,
                format,
                status: "unavailable",
                code: UNAVAILABLE_CODE,
                reason: UNAVAILABLE_MESSAGE,
              },
            },
          };
        }
        if (!record) return { status: 200, body: { data: { kind, format, status: "none" } } };
        return { status: 200, body: await describe(ctx, record) };
      },
    },
    downloadExport: {
      invalidParameter: invalidQuery,
      authorize: viewerOnly,
      handler: async (ctx) => {
        const { format, record } = queriedExport(ctx);
        if (record?.status !== "ready") throw notFound("Export not found");
        const bytes = await artifactBytes(record);
        return new Response(bytes as Uint8Array<ArrayBuffer>, {
          status: 200,
          headers: {
            "content-type": CONTENT_TYPES[format],
            "content-disposition": `attachment; filename="${record.fileName}"`,
            "content-length": String(bytes.byteLength),
          },
        });
      },
    },
  },
  jobs: {
    [EXPORT_START_JOB]: startJob,
    [EXPORT_FINISH_JOB]: finishJob,
  },
};
