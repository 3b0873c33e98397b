/**
 * Go deeper: background research through researching, waiting_for_runs (while a validation runs),
 * recalibrating and done, reported through the progress endpoint's `research`.
 */

import type { JobHandler } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import type { AudienceRecord, State } from "../../core/world/state.ts";
import { generateChart, STANDARD_DIMENSIONS } from "../../generators/index.ts";
import { coverageCounts } from "../progress/progress.ts";
import { addResearchSource, findChart, refreshCoverage, resolveTopic, statusOf } from "./grounding.ts";
import {
  type DeepenJob,
  JOB_RESEARCH,
  peekQueue,
  RESEARCH_START_MS,
  RESEARCH_STEP_MS,
  RUNS_POLL_MS,
  refreshMarker,
} from "./records.ts";

export function queuedResearch(jobId: string): AudienceRecord["research"] {
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
export function runsActive(state: State, audience: AudienceRecord): boolean {
  const members = new Set(audience.memberIds);
  for (const a of state.audiences.values()) {
    if (!a.validations.some((v) => v.status === "running")) continue;
    if (a.id === audience.id || a.memberIds.some((m) => members.has(m))) return true;
  }
  return false;
}

/** Research results join the saved grounding: every missing or assumed dimension, then the topics. */
export function applyDeepen(s: Services, audience: AudienceRecord, job: DeepenJob): Record<string, unknown> {
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

export const stepResearch: JobHandler = (s, payload) => {
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
