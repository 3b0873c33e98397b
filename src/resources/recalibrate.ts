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
 * deeper recalibrates members. The request key is the `x-service-idempotency-key` header (at most 128
 * characters; blank or longer keys are ignored) or a fresh `rk_…` key; keys are scoped per Audience and
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

import {
  type Chart,
  type ChartDatum,
  type CoverageStatus,
  coverageFor,
  DIMENSION_SPECS,
  generateChart,
  generateGrounding,
  generatePersona,
  type SourceFile,
  type SourceLink,
  STANDARD_DIMENSIONS,
  type StandardDimension,
  UPLOADED_FILE_URL_PREFIX,
} from "../../fixtures/index.ts";
import { LIMITS } from "../contract/limits.ts";
import { ApiError, badRequest, notFound, planLimit } from "../core/errors.ts";
import { memberCap, mindCap } from "../core/plans.ts";
import type { Rng } from "../core/prng.ts";
import type { JobHandler, RequestContext, ResourceModule, Services } from "../core/route.ts";
import type { AudienceRecord, JobStatus, State } from "../core/state.ts";
import { table } from "../core/state.ts";
import { viewable } from "./access.ts";
import { IDEMPOTENCY_HEADER, MAX_IDEMPOTENCY_KEY } from "./audiences.ts";
import { mindFromPersona, UNTRAINED } from "./minds.ts";
import { coverageCounts } from "./progress.ts";
import { scheduleTraining } from "./training.ts";

// ------------------------------------------------------------------------------------------ constants

export const MAX_PENDING = LIMITS.pendingRecalibrations;
export const DEFAULT_GROWTH = 5;
export const MAX_TOPICS = 20;
export const MAX_TOPIC_LENGTH = 200;
export const MAX_DISTRIBUTIONS = 50;
export const MAX_LABELS = 100;
/** Share of an adjustment's owned members rebuilt (retrained) because their new segment contradicts them. */
export const REBUILD_SHARE = 0.1;

/** Queued → running, once the operation is first in its Audience's queue. */
export const OPERATION_START_MS = 1_000;
export const OPERATION_STEP_MS = 2_000;
/** Steps from running (progress 10) to completed (100): 30, 50, 70, 90, 100. */
export const OPERATION_STEPS = 5;
/** An operation at the head of the queue completes this long after it got there. */
export const OPERATION_MS = OPERATION_START_MS + OPERATION_STEPS * OPERATION_STEP_MS;

export const RESEARCH_START_MS = 1_000;
export const RESEARCH_STEP_MS = 2_000;
/** Go deeper with no run to wait for: researching 10→25→40→55, recalibrating 70→85, done 100. */
export const RESEARCH_MS = RESEARCH_START_MS + 6 * RESEARCH_STEP_MS;
/** How often research waiting for runs checks again. */
export const RUNS_POLL_MS = 5_000;

export const JOB_OPERATION = "recalibration.operation";
export const JOB_RESEARCH = "recalibration.research";

export const MARKERS = {
  unreadable: "[[unreadable]]",
  unqueueable: "[[unqueueable]]",
  researchUnavailable: "[[research-unavailable]]",
  failNow: "[[fail-now]]",
  fail: "[[fail]]",
  notApplicable: "[[not-applicable]]",
  notFound: "[[not-found]]",
  unresolvableFile: "[[unresolvable]]",
} as const;

export const MESSAGES = {
  invalidPayload: "Invalid recalibrate payload",
  invalidDistributions: "Invalid distributions payload",
  insufficientData:
    "Could not find sufficient scientific data to ground this audience. Try a more specific description.",
  notApplicable: "The requested distribution cannot be answered by any chart",
  noGrounding: "This audience has no grounding to recalibrate. Run a research recalibration first.",
  inProgress: "Ten recalibrations are already pending for this audience",
  researchUnavailable: "Research is unavailable",
  unread: "The instruction could not be read",
  notQueued: "Go deeper could not be queued",
  failed: "Recalibration failed",
} as const;

// -------------------------------------------------------------------------------------------- records

type TopicStatus = "added" | "already_covered" | "not_found";

export interface TopicResult {
  topic: string;
  status: TopicStatus;
  chart?: { id: string; dimension: string; question: string };
  evidence?: string;
}

interface SourcesInput {
  links: SourceLink[];
  files: (Omit<SourceFile, "url"> & { url: string | null })[];
  keywords: string[];
}

interface SelectionEntry {
  dimension: string;
  distribution: ChartDatum[];
}

interface ResearchRequest {
  mode: "research";
  instruction: string | null;
  kind: "additive" | "adjustment";
  /** Members to add (additive only). */
  growth: number;
  sources: SourcesInput | null;
  requestedDistribution: string | null;
  query: string | null;
  failLater: boolean;
}

interface SelectionRequest {
  mode: "selection";
  distributions: SelectionEntry[];
}

export interface OperationRecord {
  id: string;
  audienceId: string;
  requestKey: string;
  status: JobStatus;
  progress: number;
  statusUrl: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  request: ResearchRequest | SelectionRequest;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

interface DeepenJob {
  jobId: string;
  topics: string[];
  /** Set when research is done; becomes `research.outcome` once members are recalibrated. */
  outcome: Record<string, unknown> | null;
}

/** Per Audience: waiting or running operations and Go deeper jobs, in order (the first runs). */
interface AudienceQueue {
  operations: string[];
  research: DeepenJob[];
}

const operations = (state: State) => table<OperationRecord>(state, "recalibration.operations");
const QUEUES = "recalibration.queues";
const queues = (state: State) => table<AudienceQueue>(state, QUEUES);
/** Reads without creating the table, so that a refused request leaves the state exactly as it was. */
const peekQueue = (state: State, audienceId: string): AudienceQueue | undefined =>
  (state.extra.get(QUEUES) as Map<string, AudienceQueue> | undefined)?.get(audienceId);

function queueOf(state: State, audienceId: string): AudienceQueue {
  const q = queues(state).get(audienceId);
  if (q) return q;
  const fresh: AudienceQueue = { operations: [], research: [] };
  queues(state).set(audienceId, fresh);
  return fresh;
}

/** Operations and Go deeper jobs of an Audience that are queued or running. */
export function pendingEdits(state: State, audienceId: string): number {
  const q = peekQueue(state, audienceId);
  return q ? q.operations.length + q.research.length : 0;
}

/** `calibration.active`: an operation waits or runs, or Go deeper is recalibrating members. */
function refreshMarker(state: State, audience: AudienceRecord): void {
  const q = peekQueue(state, audience.id);
  const r = audience.research;
  audience.calibrationActive =
    (q?.operations.length ?? 0) > 0 || (r?.status === "running" && r.stage === "recalibrating");
}

// -------------------------------------------------------------------------------------------- parsing

export interface ParsedRequest {
  instruction: string | null;
  sources: SourcesInput | null;
  requestedDistribution: string | null;
  query: string | null;
  distributions: SelectionEntry[] | null;
  deepen: { topics: string[] } | null;
}

const invalidPayload = (): ApiError => badRequest(MESSAGES.invalidPayload);
const invalidDistributions = (): ApiError => badRequest(MESSAGES.invalidDistributions);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function field(body: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

/** A string field: absent, null and blank are null; another type is a payload error. */
function optionalText(body: Record<string, unknown>, key: string): string | null {
  const v = field(body, key);
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalidPayload();
  const t = v.trim();
  return t === "" ? null : t;
}

function httpUrl(v: unknown): string {
  if (typeof v !== "string") throw invalidPayload();
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    throw invalidPayload();
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidPayload();
  return url.href;
}

function parseLink(v: unknown): SourceLink {
  if (typeof v === "string") {
    const url = httpUrl(v);
    return { url, title: new URL(url).hostname };
  }
  if (!isObject(v)) throw invalidPayload();
  const url = httpUrl(field(v, "url"));
  const title = optionalText(v, "title");
  return { url, title: title ?? new URL(url).hostname };
}

function parseFile(v: unknown): SourcesInput["files"][number] {
  if (!isObject(v)) throw invalidPayload();
  const name = optionalText(v, "name");
  if (name === null) throw invalidPayload();
  const rawUrl = field(v, "url");
  const url = rawUrl === undefined || rawUrl === null ? null : httpUrl(rawUrl);
  const content = field(v, "content");
  if (content !== undefined && content !== null && typeof content !== "string") throw invalidPayload();
  if (url === null && typeof content !== "string") throw invalidPayload();
  const contentType = optionalText(v, "contentType") ?? "application/octet-stream";
  const declared = field(v, "sizeBytes");
  if (
    declared !== undefined &&
    declared !== null &&
    !(Number.isInteger(declared) && (declared as number) >= 0)
  )
    throw invalidPayload();
  const sizeBytes =
    typeof declared === "number"
      ? declared
      : typeof content === "string"
        ? new TextEncoder().encode(content).byteLength
        : 0;
  return { name, url, sizeBytes, contentType };
}

function parseSources(v: unknown): SourcesInput | null {
  if (v === undefined || v === null) return null;
  const out: SourcesInput = { links: [], files: [], keywords: [] };
  if (Array.isArray(v)) {
    for (const item of v) {
      if (isObject(item) && Object.hasOwn(item, "name")) out.files.push(parseFile(item));
      else out.links.push(parseLink(item));
    }
    return out;
  }
  if (!isObject(v)) throw invalidPayload();
  const list = (key: string): unknown[] => {
    const x = field(v, key);
    if (x === undefined || x === null) return [];
    if (!Array.isArray(x)) throw invalidPayload();
    return x;
  };
  out.links = list("links").map(parseLink);
  out.files = list("files").map(parseFile);
  out.keywords = list("keywords").map((k) => {
    if (typeof k !== "string" || k.trim() === "") throw invalidPayload();
    return k.trim();
  });
  return out;
}

function parseDistributions(v: unknown): SelectionEntry[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_DISTRIBUTIONS) throw invalidDistributions();
  const seen = new Set<string>();
  return v.map((entry): SelectionEntry => {
    if (!isObject(entry)) throw invalidDistributions();
    const dimension = field(entry, "dimension");
    const data = field(entry, "distribution");
    if (typeof dimension !== "string" || dimension.trim() === "") throw invalidDistributions();
    const key = normalise(dimension);
    if (key === "" || seen.has(key)) throw invalidDistributions();
    seen.add(key);
    if (!Array.isArray(data) || data.length === 0 || data.length > MAX_LABELS) throw invalidDistributions();
    const labels = new Set<string>();
    let sum = 0;
    const distribution = data.map((d): ChartDatum => {
      if (!isObject(d)) throw invalidDistributions();
      const label = field(d, "label");
      const share = field(d, "share");
      if (typeof label !== "string" || label.trim() === "" || labels.has(label.trim()))
        throw invalidDistributions();
      if (typeof share !== "number" || !Number.isFinite(share) || share < 0 || share > 1)
        throw invalidDistributions();
      labels.add(label.trim());
      sum += share;
      return { label: label.trim(), share };
    });
    if (Math.abs(sum - 1) > 0.01) throw invalidDistributions();
    return { dimension: dimension.trim(), distribution };
  });
}

function parseDeepen(v: unknown): { topics: string[] } | null {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw invalidPayload();
  const raw = field(v, "topics");
  if (raw === undefined || raw === null) return { topics: [] };
  if (!Array.isArray(raw) || raw.length > MAX_TOPICS) throw invalidPayload();
  const topics: string[] = [];
  const seen = new Set<string>();
  for (const t of raw) {
    if (typeof t !== "string") throw invalidPayload();
    const topic = t.trim();
    if (topic === "" || topic.length > MAX_TOPIC_LENGTH) throw invalidPayload();
    if (seen.has(topic.toLowerCase())) continue;
    seen.add(topic.toLowerCase());
    topics.push(topic);
  }
  return { topics };
}

/** Reads a recalibrate body, or throws the description's 400. Pure. */
export function parseRecalibrateBody(body: unknown): ParsedRequest {
  if (!isObject(body)) throw invalidPayload();
  const given = (key: string) => field(body, key) !== undefined && field(body, key) !== null;
  if (given("deepen") && given("distributions")) throw invalidPayload();
  const parsed: ParsedRequest = {
    instruction: optionalText(body, "instruction"),
    sources: parseSources(field(body, "sources")),
    requestedDistribution: optionalText(body, "requestedDistribution"),
    query: optionalText(body, "query"),
    deepen: parseDeepen(field(body, "deepen")),
    distributions: parseDistributions(field(body, "distributions")),
  };
  return parsed;
}

const ADDITIVE =
  /\b(add|adding|more|grow|growing|include|including|expand|expanding|extend|increase|recruit)\b/i;
const COUNT_AFTER = /\b(?:add|include|recruit|grow by|expand by|increase by)\s+([1-9]\d{0,6})\b/i;
const COUNT_BEFORE = /\b([1-9]\d{0,6})\s+(?:more|new|additional|extra)\b/i;

/** Pure: an instruction is additive (with an explicit count or not) or an adjustment. */
export function classifyInstruction(text: string): { kind: "additive" | "adjustment"; count: number | null } {
  if (!ADDITIVE.test(text)) return { kind: "adjustment", count: null };
  const m = COUNT_AFTER.exec(text) ?? COUNT_BEFORE.exec(text);
  return { kind: "additive", count: m?.[1] ? Number(m[1]) : null };
}

// ------------------------------------------------------------------------------------------- charts

/** `Company size`, `company_size` and `companySize` name the same dimension. */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "");
}

function canonicalDimension(topic: string): string {
  const key = normalise(topic);
  return STANDARD_DIMENSIONS.find((d) => normalise(d) === key) ?? topic.trim();
}

function isStandard(dimension: string): dimension is StandardDimension {
  return (STANDARD_DIMENSIONS as readonly string[]).includes(dimension);
}

function findChart(audience: AudienceRecord, dimension: string): Chart | undefined {
  const key = normalise(dimension);
  return audience.grounding?.charts.find((c) => normalise(c.dimension) === key);
}

const hasCharts = (a: AudienceRecord): boolean => (a.grounding?.charts.length ?? 0) > 0;

const chartRef = (c: Chart) => ({ id: c.id, dimension: c.dimension, question: c.question });

/** Adds a research source to the grounding (creating it) and returns its index. */
function addResearchSource(rng: Rng, audience: AudienceRecord, label: string): number {
  audience.grounding ??= { charts: [], sources: [] };
  audience.grounding.sources.push({
    title: `Desk research: ${label}`,
    url: `https://research.example.com/reports/${rng.chars(12, "abcdefghijklmnopqrstuvwxyz0123456789")}`,
  });
  return audience.grounding.sources.length - 1;
}

/**
 * Resolves one requested topic against the Audience's charts: `not_found` when it carries the marker,
 * `already_covered` when a chart answers it, otherwise a new chart is made (`added`), citing `source()`.
 */
function resolveTopic(rng: Rng, audience: AudienceRecord, topic: string, source: () => number): TopicResult {
  if (topic.includes(MARKERS.notFound)) return { topic, status: "not_found" };
  const existing = findChart(audience, topic);
  if (existing) {
    return { topic, status: "already_covered", chart: chartRef(existing), evidence: existing.evidence };
  }
  const dimension = canonicalDimension(topic);
  const chart = generateChart(rng.fork(`topic:${normalise(dimension)}`), dimension, audience.topic, 1);
  chart.sourceIndex = source();
  audience.grounding ??= { charts: [], sources: [] };
  audience.grounding.charts.push(chart);
  return { topic, status: "added", chart: chartRef(chart), evidence: chart.evidence };
}

/**
 * Coverage after charts changed: a dimension with a chart is sourced with the chart's data; one without
 * keeps its earlier (weaker) row, or gets a fresh one when the Audience had no coverage yet.
 */
function refreshCoverage(rng: Rng, audience: AudienceRecord): void {
  const fresh = coverageFor(rng, audience.grounding?.charts ?? []).dimensions;
  const before = audience.coverage;
  audience.coverage = fresh.map((row) => {
    if (row.status === "sourced") return row;
    const old = before?.find((r) => r.dimension === row.dimension);
    return old && old.status !== "sourced" ? structuredClone(old) : row;
  });
}

function statusOf(audience: AudienceRecord, dimension: string): CoverageStatus {
  return audience.coverage?.find((r) => r.dimension === dimension)?.status ?? "missing";
}

// ------------------------------------------------------------------------------------------ members

function ownedMinds(state: State, userId: string): number {
  let n = 0;
  for (const m of state.minds.values()) if (m.ownerId === userId) n++;
  return n;
}

/** New members for an additive instruction, within the caps as they are when the operation completes. */
function growMembers(s: Services, audience: AudienceRecord, wanted: number, rng: Rng): number {
  const owner = s.state.users.get(audience.ownerId);
  if (!owner) return 0;
  const room = Math.min(
    memberCap(owner) - audience.memberIds.length,
    mindCap(owner) - ownedMinds(s.state, owner.id),
  );
  const n = Math.max(0, Math.min(wanted, room));
  const now = s.clock.now();
  for (let i = 0; i < n; i++) {
    const p = generatePersona(rng.fork(`persona:${i}`), { theme: audience.topic });
    const mind = mindFromPersona(p, {
      id: s.ids.uuid(),
      ownerId: owner.id,
      isPublic: false,
      createdAt: now,
      training: UNTRAINED,
    });
    s.state.minds.set(mind.id, mind);
    audience.memberIds.push(mind.id);
    scheduleTraining(s, mind.id);
  }
  return n;
}

/** An adjustment rebuilds the owner's members whose new segment contradicts them: they are retrained. */
function rebuildMembers(s: Services, audience: AudienceRecord, rng: Rng): number {
  const own = audience.memberIds.filter((id) => s.state.minds.get(id)?.ownerId === audience.ownerId);
  if (own.length === 0) return 0;
  const n = Math.max(1, Math.round(own.length * REBUILD_SHARE));
  const chosen = rng.shuffle(own).slice(0, n);
  for (const id of chosen) scheduleTraining(s, id, { restart: true });
  return chosen.length;
}

// ----------------------------------------------------------------------------------- source bundle

function joinSources(
  s: Services,
  audience: AudienceRecord,
  sources: SourcesInput | null,
  note: string | null,
) {
  const bundle = audience.sources;
  if (note !== null) bundle.adjustments.push(note);
  if (!sources) return;
  for (const link of sources.links) {
    if (!bundle.links.some((l) => l.url === link.url)) bundle.links.push({ ...link });
  }
  for (const f of sources.files) {
    const url = f.url ?? `${UPLOADED_FILE_URL_PREFIX}${s.ids.uuid()}/${encodeURIComponent(f.name)}`;
    bundle.files.push({ name: f.name, url, sizeBytes: f.sizeBytes, contentType: f.contentType });
  }
  for (const k of sources.keywords) if (!bundle.keywords.includes(k)) bundle.keywords.push(k);
}

// --------------------------------------------------------------------------------------- operations

function receipt(op: OperationRecord) {
  return {
    id: op.id,
    requestKey: op.requestKey,
    status: op.status,
    progress: op.progress,
    statusUrl: op.statusUrl,
    result: op.result === null ? null : structuredClone(op.result),
    error: op.error === null ? null : { ...op.error },
  };
}

const isTerminal = (op: OperationRecord): boolean => op.status === "completed" || op.status === "failed";

function applyResearch(s: Services, audience: AudienceRecord, op: OperationRecord, req: ResearchRequest) {
  const rng = s.rng.fork(`recalibration:${op.id}`);
  joinSources(s, audience, req.sources, req.instruction);
  let chartsAdded = 0;
  let sourcesAdded = 0;
  if (req.query !== null && !hasCharts(audience)) {
    const g = generateGrounding(rng.fork("grounding"), req.query, { withCharts: true });
    audience.grounding ??= { charts: [], sources: [] };
    const offset = audience.grounding.sources.length;
    audience.grounding.sources.push(...g.sources);
    audience.grounding.charts.push(...g.charts.map((c) => ({ ...c, sourceIndex: c.sourceIndex + offset })));
    chartsAdded += g.charts.length;
    sourcesAdded += g.sources.length;
  }
  let sourceIndex: number | null = null;
  const source = (): number => {
    if (sourceIndex === null) {
      sourceIndex = addResearchSource(
        rng.fork("source"),
        audience,
        req.requestedDistribution ?? audience.topic,
      );
      sourcesAdded++;
    }
    return sourceIndex;
  };
  const requestedTopics: TopicResult[] = [];
  if (req.requestedDistribution !== null) {
    const t = resolveTopic(rng, audience, req.requestedDistribution, source);
    if (t.status === "added") chartsAdded++;
    requestedTopics.push(t);
  }
  const membersAdded = req.kind === "additive" ? growMembers(s, audience, req.growth, rng.fork("grow")) : 0;
  const membersRebuilt =
    req.kind === "adjustment" && req.instruction !== null
      ? rebuildMembers(s, audience, rng.fork("rebuild"))
      : 0;
  refreshCoverage(rng.fork("coverage"), audience);
  return {
    mode: "research",
    classification: req.instruction === null ? null : req.kind,
    chartsAdded,
    sourcesAdded,
    membersRecalibrated: audience.memberIds.length,
    membersAdded,
    membersRebuilt,
    requestedTopics,
  };
}

function applySelection(s: Services, audience: AudienceRecord, op: OperationRecord, req: SelectionRequest) {
  audience.grounding ??= { charts: [], sources: [] };
  const grounding = audience.grounding;
  let chartsAdded = 0;
  let chartsReplaced = 0;
  for (const entry of req.distributions) {
    const data = entry.distribution.map((d) => ({ ...d }));
    const existing = findChart(audience, entry.dimension);
    if (existing) {
      existing.data = data;
      existing.evidence = "Distribution selected by the Audience owner.";
      chartsReplaced++;
      continue;
    }
    const dimension = canonicalDimension(entry.dimension);
    grounding.charts.push({
      id: s.ids.uuid(),
      dimension,
      question: isStandard(dimension)
        ? DIMENSION_SPECS[dimension].question
        : `How are they distributed by ${dimension}?`,
      kind: "bar",
      unit: "share",
      data,
      evidence: "Distribution selected by the Audience owner.",
      sourceIndex: 0,
    });
    chartsAdded++;
  }
  refreshCoverage(s.rng.fork(`recalibration:${op.id}:coverage`), audience);
  return {
    mode: "selection",
    chartsAdded,
    chartsReplaced,
    membersRecalibrated: audience.memberIds.length,
    requestedTopics: [],
  };
}

/** Ends the head operation and starts the next one of the Audience's queue. */
function finishOperation(s: Services, audience: AudienceRecord, op: OperationRecord): void {
  op.completedAt = s.clock.now();
  const q = queueOf(s.state, audience.id);
  q.operations = q.operations.filter((id) => id !== op.id);
  const next = q.operations[0];
  if (next !== undefined)
    s.schedule(OPERATION_START_MS, JOB_OPERATION, { audienceId: audience.id, operationId: next });
  refreshMarker(s.state, audience);
}

const stepOperation: JobHandler = (s, payload) => {
  const p = payload as { audienceId: string; operationId: string };
  const op = operations(s.state).get(p.operationId);
  const audience = s.state.audiences.get(p.audienceId);
  if (!op || !audience || isTerminal(op)) return;
  if (op.status === "queued") {
    op.status = "running";
    op.progress = 10;
    op.startedAt = s.clock.now();
    s.schedule(OPERATION_STEP_MS, JOB_OPERATION, p);
    return;
  }
  op.progress = Math.min(100, op.progress + 20);
  const req = op.request;
  if (req.mode === "research" && req.failLater && op.progress >= 50) {
    op.status = "failed";
    op.error = { code: "RECALIBRATION_FAILED", message: MESSAGES.failed };
    finishOperation(s, audience, op);
    return;
  }
  if (op.progress < 100) {
    s.schedule(OPERATION_STEP_MS, JOB_OPERATION, p);
    return;
  }
  op.result =
    req.mode === "research" ? applyResearch(s, audience, op, req) : applySelection(s, audience, op, req);
  op.status = "completed";
  audience.updatedAt = s.clock.now();
  finishOperation(s, audience, op);
};

// ----------------------------------------------------------------------------------------- Go deeper

function queuedResearch(jobId: string): AudienceRecord["research"] {
  return {
    phase: "researching",
    status: "queued",
    stage: "researching",
    progress: 0,
    startedAt: null,
    completedAt: null,
    outcome: null,
    jobId,
  };
}

/** Study runs are not simulated; a running validation of any Audience sharing a member is a run. */
function runsActive(state: State, audience: AudienceRecord): boolean {
  const members = new Set(audience.memberIds);
  for (const a of state.audiences.values()) {
    if (!a.validations.some((v) => v.status === "running")) continue;
    if (a.id === audience.id || a.memberIds.some((m) => members.has(m))) return true;
  }
  return false;
}

/** Research results join the saved grounding: every missing or assumed dimension, then the topics. */
function applyDeepen(s: Services, audience: AudienceRecord, job: DeepenJob): Record<string, unknown> {
  const rng = s.rng.fork(`deepen:${job.jobId}`);
  const before = new Map(STANDARD_DIMENSIONS.map((d) => [d, statusOf(audience, d)] as const));
  let sourceIndex: number | null = null;
  const source = (): number => {
    sourceIndex ??= addResearchSource(rng.fork("source"), audience, audience.topic);
    return sourceIndex;
  };
  const topics = job.topics.map((t) => resolveTopic(rng, audience, t, source));
  let chartsAdded = topics.filter((t) => t.status === "added").length;
  for (const dimension of STANDARD_DIMENSIONS) {
    const status = before.get(dimension);
    if ((status !== "missing" && status !== "assumed") || findChart(audience, dimension)) continue;
    const chart = generateChart(rng.fork(`chart:${dimension}`), dimension, audience.topic, 1);
    chart.sourceIndex = source();
    audience.grounding?.charts.push(chart);
    chartsAdded++;
  }
  refreshCoverage(rng.fork("coverage"), audience);
  const dimensionsImproved = STANDARD_DIMENSIONS.flatMap((dimension) => {
    const from = before.get(dimension) ?? "missing";
    const to = statusOf(audience, dimension);
    return from !== to ? [{ dimension, from, to }] : [];
  });
  audience.updatedAt = s.clock.now();
  return {
    chartsAdded,
    sourcesAdded: sourceIndex === null ? 0 : 1,
    dimensionsImproved,
    coverage: coverageCounts(audience.coverage ?? []),
    applied: true,
    topics,
  };
}

const stepResearch: JobHandler = (s, payload) => {
  const p = payload as { audienceId: string; jobId: string };
  const audience = s.state.audiences.get(p.audienceId);
  const q = peekQueue(s.state, p.audienceId);
  const job = q?.research[0];
  const r = audience?.research;
  if (!audience || !q || !job || job.jobId !== p.jobId || !r || r.jobId !== p.jobId) return;
  const now = s.clock.now();
  const again = (ms: number) => s.schedule(ms, JOB_RESEARCH, p);
  if (r.status === "queued") {
    Object.assign(r, { status: "running", startedAt: now, progress: 10 });
    again(RESEARCH_STEP_MS);
  } else if (r.stage === "researching" && r.progress < 55) {
    r.progress += 15;
    again(RESEARCH_STEP_MS);
  } else if (r.stage === "researching") {
    job.outcome = applyDeepen(s, audience, job);
    if (runsActive(s.state, audience)) {
      Object.assign(r, { stage: "waiting_for_runs", progress: 60 });
      again(RUNS_POLL_MS);
    } else {
      Object.assign(r, { stage: "recalibrating", progress: 70 });
      again(RESEARCH_STEP_MS);
    }
  } else if (r.stage === "waiting_for_runs") {
    if (runsActive(s.state, audience)) again(RUNS_POLL_MS);
    else {
      Object.assign(r, { stage: "recalibrating", progress: 70 });
      again(RESEARCH_STEP_MS);
    }
  } else if (r.stage === "recalibrating" && r.progress < 85) {
    r.progress = 85;
    again(RESEARCH_STEP_MS);
  } else {
    Object.assign(r, {
      phase: "researched",
      status: "completed",
      stage: "done",
      progress: 100,
      completedAt: now,
      outcome: { ...job.outcome, membersRecalibrated: audience.memberIds.length },
    });
    q.research.shift();
    const next = q.research[0];
    if (next) {
      audience.research = queuedResearch(next.jobId);
      s.schedule(RESEARCH_START_MS, JOB_RESEARCH, { audienceId: audience.id, jobId: next.jobId });
    }
  }
  refreshMarker(s.state, audience);
};

// ------------------------------------------------------------------------------------------- handler

interface Access {
  audience: AudienceRecord;
  /** A staff admin collaborator: composition amendments (selection mode) only. */
  staffOnly: boolean;
}

function access(ctx: RequestContext): Access {
  const audience = ctx.state.audiences.get(ctx.params.audienceId ?? "");
  if (!audience) throw notFound("Audience not found");
  if (audience.ownerId === ctx.caller.id) return { audience, staffOnly: false };
  const admin = audience.collaborators.some(
    (c) => c.userId === ctx.caller.id && c.role === "admin" && c.status === "accepted",
  );
  if (ctx.caller.staff && admin) return { audience, staffOnly: true };
  throw notFound("Audience not found");
}

function idempotencyKey(ctx: RequestContext): string | null {
  const raw = ctx.headers.get(IDEMPOTENCY_HEADER);
  if (raw === null || raw.trim() === "" || raw.length > MAX_IDEMPOTENCY_KEY) return null;
  return raw;
}

const scopeOf = (audienceId: string): string => `recalibrate:${audienceId}`;
const slotOf = (audienceId: string, key: string): string => `${scopeOf(audienceId)}\n${key}`;

function checkPending(state: State, audience: AudienceRecord): void {
  if (pendingEdits(state, audience.id) >= MAX_PENDING) {
    throw new ApiError(409, MESSAGES.inProgress, { code: "RECALIBRATION_IN_PROGRESS" });
  }
}

function checkFiles(sources: SourcesInput | null): void {
  const bad = sources?.files.find((f) => f.name.includes(MARKERS.unresolvableFile));
  if (bad) throw new ApiError(422, `Could not read the attached file "${bad.name}"`);
}

function checkInstructionReadable(instruction: string | null): void {
  if (instruction?.includes(MARKERS.unreadable)) {
    throw new ApiError(503, MESSAGES.unread, { code: "AUDIENCE_EDIT_UNREAD" });
  }
}

function goDeeper(ctx: RequestContext, audience: AudienceRecord, req: ParsedRequest, topics: string[]) {
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
function researchRequest(ctx: RequestContext, audience: AudienceRecord, req: ParsedRequest): ResearchRequest {
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

function recalibrate(ctx: RequestContext) {
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
  operations(ctx.state).set(id, op);
  ctx.state.idempotency.set(slotOf(audience.id, requestKey), {
    scope: scopeOf(audience.id),
    key: requestKey,
    resultId: id,
    createdAt: now,
  });
  const q = queueOf(ctx.state, audience.id);
  q.operations.push(id);
  if (q.operations.length === 1) {
    ctx.schedule(OPERATION_START_MS, JOB_OPERATION, { audienceId: audience.id, operationId: id });
  }
  refreshMarker(ctx.state, audience);
  return { status: 202, body: { data: { operation: receipt(op) } } };
}

/** The receipt behind a `statusUrl`: the operation must be one of this Audience's. */
function readOperation(ctx: RequestContext) {
  const { audience } = viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
  const op = operations(ctx.state).get(ctx.params.operationId ?? "");
  if (!op || op.audienceId !== audience.id) throw notFound("Operation not found");
  return { status: 200, body: { data: { operation: receipt(op) } } };
}

export const recalibration: ResourceModule = {
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
