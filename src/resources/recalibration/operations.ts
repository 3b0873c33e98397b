/**
 * Recalibration operations, one state machine: queued, running (progress in steps), then completed or
 * failed; one at a time per Audience, each finishing starts the next.
 */

import type { JobHandler } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import type { AudienceRecord } from "../../core/world/state.ts";
import { DIMENSION_SPECS, generateGrounding } from "../../generators/index.ts";
import {
  addResearchSource,
  canonicalDimension,
  findChart,
  growMembers,
  hasCharts,
  isStandard,
  joinSources,
  rebuildMembers,
  refreshCoverage,
  resolveTopic,
} from "./grounding.ts";
import {
  JOB_OPERATION,
  MESSAGES,
  OPERATION_START_MS,
  OPERATION_STEP_MS,
  type OperationRecord,
  operations,
  queueOf,
  type ResearchRequest,
  refreshMarker,
  type SelectionRequest,
  type TopicResult,
} from "./records.ts";

export function receipt(op: OperationRecord) {
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

export const isTerminal = (op: OperationRecord): boolean =>
  op.status === "completed" || op.status === "failed";

export function applyResearch(
  s: Services,
  audience: AudienceRecord,
  op: OperationRecord,
  req: ResearchRequest,
) {
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

export function applySelection(
  s: Services,
  audience: AudienceRecord,
  op: OperationRecord,
  req: SelectionRequest,
) {
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
/** A new operation joins its Audience's queue, and starts at once when nothing is ahead of it. */
export function enqueueOperation(s: Services, audience: AudienceRecord, op: OperationRecord): void {
  operations(s.state).set(op.id, op);
  const q = queueOf(s.state, audience.id);
  q.operations.push(op.id);
  if (q.operations.length === 1) {
    s.schedule(OPERATION_START_MS, JOB_OPERATION, { audienceId: audience.id, operationId: op.id });
  }
  refreshMarker(s.state, audience);
}

export function finishOperation(s: Services, audience: AudienceRecord, op: OperationRecord): void {
  op.completedAt = s.clock.now();
  const q = queueOf(s.state, audience.id);
  q.operations = q.operations.filter((id) => id !== op.id);
  const next = q.operations[0];
  if (next !== undefined)
    s.schedule(OPERATION_START_MS, JOB_OPERATION, { audienceId: audience.id, operationId: next });
  refreshMarker(s.state, audience);
}

/**
 * The operation state machine, the only place an operation's status moves after it is queued:
 * queued → running (progress 10) → +20 per step → completed at 100, or failed at 50 (`[[fail]]`).
 */
export const stepOperation: JobHandler = (s, payload) => {
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
