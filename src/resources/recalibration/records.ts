/**
 * Recalibration's constants and records: operations, Go deeper jobs, the per-Audience queue, and the
 * `calibration.active` marker that follows it.
 */

import { LIMITS } from "../../contract/limits.ts";
import type { AudienceRecord, JobStatus, State } from "../../core/world/state.ts";
import { table } from "../../core/world/state.ts";
import type { ChartDatum, SourceFile, SourceLink } from "../../generators/index.ts";

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

export type TopicStatus = "added" | "already_covered" | "not_found";

export interface TopicResult {
  topic: string;
  status: TopicStatus;
  chart?: { id: string; dimension: string; question: string };
  evidence?: string;
}

export interface SourcesInput {
  links: SourceLink[];
  files: (Omit<SourceFile, "url"> & { url: string | null })[];
  keywords: string[];
}

export interface SelectionEntry {
  dimension: string;
  distribution: ChartDatum[];
}

export interface ResearchRequest {
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

export interface SelectionRequest {
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

export interface DeepenJob {
  jobId: string;
  topics: string[];
  /** Set when research is done; becomes `research.outcome` once members are recalibrated. */
  outcome: Record<string, unknown> | null;
}

/** Per Audience: waiting or running operations and Go deeper jobs, in order (the first runs). */
export interface AudienceQueue {
  operations: string[];
  research: DeepenJob[];
}

export const operations = (state: State) => table<OperationRecord>(state, "recalibration.operations");
export const QUEUES = "recalibration.queues";
export const queues = (state: State) => table<AudienceQueue>(state, QUEUES);
/** Reads without creating the table, so that a refused request leaves the state exactly as it was. */
export const peekQueue = (state: State, audienceId: string): AudienceQueue | undefined =>
  (state.extra.get(QUEUES) as Map<string, AudienceQueue> | undefined)?.get(audienceId);

export function queueOf(state: State, audienceId: string): AudienceQueue {
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
export function refreshMarker(state: State, audience: AudienceRecord): void {
  const q = peekQueue(state, audience.id);
  const r = audience.research;
  audience.calibrationActive =
    (q?.operations.length ?? 0) > 0 || (r?.status === "running" && r.stage === "recalibrating");
}
