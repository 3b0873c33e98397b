/**
 * Recalibration (description, "Audiences: recalibrate"): research mode, selection mode and Go deeper, all
 * moving on the virtual clock. The request field types are "not shown" by the description; the simulator's
 * choices (README, "Simulator decisions") are:
 *
 * - `instruction`: string; classified as additive (it says add, more, grow, include, expand, extend,
 *   increase or recruit) or an adjustment (anything else). An explicit count is a number right after
 *   add/include/recruit/grow by/expand by/increase by, or before more/new/additional/extra ("add 20",
 *   "20 more"); without one an additive instruction grows the Audience by DEFAULT_GROWTH, within the cap.
 * - `sources`: an object `{ links?, files?, keywords? }` or an array of links and files. A link is a URL
 *   string or `{ url, title? }` (http or https); a file is `{ name, url? | content?, contentType?,
 *   sizeBytes? }` (inline `content` is stored under an uploaded-file URL).
 * - `requestedDistribution`, `query`: strings (`query` replaces the research query in full).
 * - `distributions` (selection mode): 1 to 50 `{ dimension, distribution: [{ label, share }] }` with
 *   unique dimensions, unique non-blank labels, shares in [0, 1] adding up to 1 (±0.01); anything else is
 *   400 `Invalid distributions payload`. The named dimensions' charts are replaced (or added); other
 *   charts stay.
 * - `deepen`: an object `{ topics?: string[] }`, at most 20 non-blank topics of at most 200 characters.
 * Null and blank strings count as absent; other wrong types are 400 `Invalid recalibrate payload`, and so
 * is `deepen` together with `distributions`. In selection mode the research fields are ignored.
 *
 * Access: the owner. A staff user who is an accepted direct admin collaborator may send selection mode
 * only (composition amendments); anything else from them, and every request from anyone else, is 404
 * `Audience not found` (the contract's 403 is PlanLimitError only, so "Access denied" is not available).
 * Support grants are not simulated.
 *
 * Operations (research and selection mode): 202 with a receipt; per Audience they run one at a time in
 * order (queued, running after OPERATION_START_MS with progress 10, then +20 every OPERATION_STEP_MS,
 * completed at 100). `calibration.active` is true while any operation is queued or running, or while Go
 * deeper recalibrates members. The request key is the `x-service-idempotency-key` header (up to the
 * contract's length; blank or longer keys are ignored) or a fresh `rk_…` key; keys are scoped per Audience and
 * retained. Sending a known key (fresh keys included) again returns that operation's receipt without new
 * work: 200 once it is completed or failed, 202 while it is queued or running. `statusUrl` is
 * `{prefix}/audiences/{id}/recalibrate/operations/{operationId}` (under the prefix the operation was
 * made on); it answers the receipt to anyone who may read the Audience, and 404 for an operation of
 * another Audience or none.
 *
 * Go deeper: 202 with a research job; jobs of an Audience run one at a time, reported through the progress
 * endpoint's `research`. It ignores the idempotency key. At most 10 edits (operations and Go deeper jobs
 * together) wait per Audience; the 11th is 409 `RECALIBRATION_IN_PROGRESS`.
 *
 * Deterministic triggers for the outcomes the simulator cannot otherwise reach (see MARKERS):
 * `[[unreadable]]` in an instruction → 503 AUDIENCE_EDIT_UNREAD; `[[unqueueable]]` in a Go deeper topic →
 * 503; `[[research-unavailable]]` in `query` → 502; `[[fail-now]]` in an instruction → 500 (the run fails
 * as it starts, nothing is kept); `[[fail]]` in an instruction → 202, then the operation fails at 50%;
 * `[[not-applicable]]` in `requestedDistribution` → 422 AUDIENCE_DISTRIBUTION_NOT_APPLICABLE;
 * `[[not-found]]` in a requested distribution or topic → `not_found`; `[[unresolvable]]` in a file name →
 * 422. Research mode on an Audience without saved charts needs `query` (else 422).
 */
import { ApiError, badRequest, notFound, planLimit } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import { memberCap, mindCap } from "../../core/world/plans.ts";
import type { AudienceRecord, State } from "../../core/world/state.ts";
import { viewable } from "../access.ts";
import { IDEMPOTENCY_HEADER, MAX_IDEMPOTENCY_KEY } from "../audiences/audiences.ts";
import { recalibrationView } from "./dashboard.ts";
import { queuedResearch, stepResearch } from "./deepen.ts";
import { hasCharts, joinSources, ownedMinds } from "./grounding.ts";
import { enqueueOperation, isTerminal, receipt, stepOperation } from "./operations.ts";
import {
  DEFAULT_GROWTH,
  JOB_OPERATION,
  JOB_RESEARCH,
  MARKERS,
  MAX_PENDING,
  MESSAGES,
  type OperationRecord,
  operations,
  pendingEdits,
  queueOf,
  RESEARCH_START_MS,
  type ResearchRequest,
  refreshMarker,
  type SelectionRequest,
  type SourcesInput,
} from "./records.ts";
import { classifyInstruction, type ParsedRequest, parseRecalibrateBody } from "./request.ts";

export interface Access {
  audience: AudienceRecord;
  /** A staff admin collaborator: composition amendments (selection mode) only. */
  staffOnly: boolean;
}

export function access(ctx: RequestContext): Access {
  const audience = ctx.state.audiences.get(ctx.params.audienceId ?? "");
  if (!audience) throw notFound("Audience not found");
  if (audience.ownerId === ctx.caller.id) return { audience, staffOnly: false };
  const admin = audience.collaborators.some(
    (c) => c.userId === ctx.caller.id && c.role === "admin" && c.status === "accepted",
  );
  if (ctx.caller.staff && admin) return { audience, staffOnly: true };
  throw notFound("Audience not found");
}

export function idempotencyKey(ctx: RequestContext): string | null {
  const raw = ctx.headers.get(IDEMPOTENCY_HEADER);
  if (raw === null || raw.trim() === "" || raw.length > MAX_IDEMPOTENCY_KEY) return null;
  return raw;
}

export const scopeOf = (audienceId: string): string => `recalibrate:${audienceId}`;
export const slotOf = (audienceId: string, key: string): string => `${scopeOf(audienceId)}\n${key}`;

export function checkPending(state: State, audience: AudienceRecord): void {
  if (pendingEdits(state, audience.id) >= MAX_PENDING) {
    throw new ApiError(409, MESSAGES.inProgress, { code: "RECALIBRATION_IN_PROGRESS" });
  }
}

export function checkFiles(sources: SourcesInput | null): void {
  const bad = sources?.files.find((f) => f.name.includes(MARKERS.unresolvableFile));
  if (bad) throw new ApiError(422, `Could not read the attached file "${bad.name}"`);
}

export function checkInstructionReadable(instruction: string | null): void {
  if (instruction?.includes(MARKERS.unreadable)) {
    throw new ApiError(503, MESSAGES.unread, { code: "AUDIENCE_EDIT_UNREAD" });
  }
}

export function goDeeper(
  ctx: RequestContext,
  audience: AudienceRecord,
  req: ParsedRequest,
  topics: string[],
) {
  checkPending(ctx.state, audience);
  checkInstructionReadable(req.instruction);
  if (topics.some((t) => t.includes(MARKERS.unqueueable))) throw new ApiError(503, MESSAGES.notQueued);
  checkFiles(req.sources);

  joinSources(ctx, audience, req.sources, req.instruction);
  const q = queueOf(ctx.state, audience.id);
  const behind = q.research.length > 0;
  const jobId = ctx.ids.uuid();
  q.research.push({ jobId, topics, outcome: null });
  if (!behind) {
    audience.research = queuedResearch(jobId);
    ctx.schedule(RESEARCH_START_MS, JOB_RESEARCH, { audienceId: audience.id, jobId });
  }
  return {
    status: 202,
    body: {
      data: {
        research: {
          jobId,
          phase: "researching",
          status: "queued",
          stage: "researching",
          progress: 0,
          ...(behind ? { queuedBehindRunningResearch: true } : {}),
        },
        progressUrl: `${ctx.prefix}/audiences/${audience.id}/progress`,
      },
    },
  };
}

/** Research mode's checks, in order; returns the request to run. Changes nothing. */
export function researchRequest(
  ctx: RequestContext,
  audience: AudienceRecord,
  req: ParsedRequest,
): ResearchRequest {
  checkInstructionReadable(req.instruction);
  const { kind, count } =
    req.instruction === null
      ? { kind: "adjustment" as const, count: null }
      : classifyInstruction(req.instruction);
  let growth = 0;
  if (kind === "additive") {
    const owner = ctx.state.users.get(audience.ownerId) ?? ctx.caller;
    const cap = memberCap(owner);
    const current = audience.memberIds.length;
    if (current >= cap || (count !== null && current + count > cap)) {
      throw planLimit("groupMembers", owner.plan, cap, current);
    }
    growth = count ?? Math.min(DEFAULT_GROWTH, cap - current);
    const sparks = mindCap(owner);
    const owned = ownedMinds(ctx.state, owner.id);
    if (owned + growth > sparks) throw planLimit("sparks", owner.plan, sparks, owned);
  }
  checkFiles(req.sources);
  if (!hasCharts(audience) && req.query === null) throw new ApiError(422, MESSAGES.insufficientData);
  if (req.requestedDistribution?.includes(MARKERS.notApplicable)) {
    throw new ApiError(422, MESSAGES.notApplicable, { code: "AUDIENCE_DISTRIBUTION_NOT_APPLICABLE" });
  }
  if (req.query?.includes(MARKERS.researchUnavailable)) throw new ApiError(502, MESSAGES.researchUnavailable);
  return {
    mode: "research",
    instruction: req.instruction,
    kind,
    growth,
    sources: req.sources,
    requestedDistribution: req.requestedDistribution,
    query: req.query,
    failLater: req.instruction?.includes(MARKERS.fail) ?? false,
  };
}

export function recalibrate(ctx: RequestContext) {
  const { audience, staffOnly } = access(ctx);
  const req = parseRecalibrateBody(ctx.body);
  if (staffOnly) {
    const beyondComposition =
      req.distributions === null ||
      req.deepen !== null ||
      req.instruction !== null ||
      req.sources !== null ||
      req.requestedDistribution !== null ||
      req.query !== null;
    if (beyondComposition) throw notFound("Audience not found");
  }
  if (req.deepen) return goDeeper(ctx, audience, req, req.deepen.topics);

  const key = idempotencyKey(ctx);
  if (key !== null) {
    const earlier = ctx.state.idempotency.get(slotOf(audience.id, key));
    const op = earlier ? operations(ctx.state).get(earlier.resultId) : undefined;
    if (op) return { status: isTerminal(op) ? 200 : 202, body: { data: { operation: receipt(op) } } };
  }

  checkPending(ctx.state, audience);
  let request: ResearchRequest | SelectionRequest;
  if (req.distributions) {
    if (!hasCharts(audience)) throw new ApiError(422, MESSAGES.noGrounding);
    request = { mode: "selection", distributions: req.distributions };
  } else {
    request = researchRequest(ctx, audience, req);
    // The run starts and fails at once: nothing is kept and the marker reflects the rest of the queue.
    if (req.instruction?.includes(MARKERS.failNow)) {
      refreshMarker(ctx.state, audience);
      throw new ApiError(500, MESSAGES.failed);
    }
  }

  const now = ctx.clock.now();
  const id = `op_${ctx.rng.chars(20, "abcdefghijklmnopqrstuvwxyz0123456789")}`;
  const requestKey = key ?? `rk_${ctx.rng.chars(20, "abcdefghijklmnopqrstuvwxyz0123456789")}`;
  const op: OperationRecord = {
    id,
    audienceId: audience.id,
    requestKey,
    status: "queued",
    progress: 0,
    statusUrl: `${ctx.prefix}/audiences/${audience.id}/recalibrate/operations/${id}`,
    result: null,
    error: null,
    request,
    createdAt: now,
    startedAt: null,
    completedAt: null,
  };
  ctx.state.idempotency.set(slotOf(audience.id, requestKey), {
    scope: scopeOf(audience.id),
    key: requestKey,
    resultId: id,
    createdAt: now,
  });
  enqueueOperation(ctx, audience, op);
  return { status: 202, body: { data: { operation: receipt(op) } } };
}

/** The receipt behind a `statusUrl`: the operation must be one of this Audience's. */
export function readOperation(ctx: RequestContext) {
  const { audience } = viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
  const op = operations(ctx.state).get(ctx.params.operationId ?? "");
  if (!op || op.audienceId !== audience.id) throw notFound("Operation not found");
  return { status: 200, body: { data: { operation: receipt(op) } } };
}

export const recalibration: ResourceModule = {
  view: recalibrationView,
  routes: {
    getRecalibrationOperation: { pure: true, handler: readOperation },
    recalibrateAudience: {
      authorize: (ctx) => void access(ctx),
      invalidBody: () => badRequest(MESSAGES.invalidPayload),
      handler: recalibrate,
    },
  },
  jobs: { [JOB_OPERATION]: stepOperation, [JOB_RESEARCH]: stepResearch },
};
