/**
 * Formation builds on the virtual clock, and the background effects other resources have on Formations.
 *
 * A build is two jobs: a progress step, then completion. Each job carries the build's sequence number,
 * so a recompute or a delete simply makes the older jobs stale instead of having to find and cancel them.
 * Completion sorts the Audience's current members with the classifier; `ready` needs at least two
 * populated primary buckets, anything less is `failed` with a safe reason. A recompute keeps the old
 * subgroups visible while it runs and swaps them in place when it is done.
 */

import type { JobHandler } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import type {
  AudienceRecord,
  FormationHypothesisRecord,
  FormationRecord,
  MindRecord,
  State,
} from "../../core/world/state.ts";
import { FILTER_ATTRIBUTE_KEYS, type FilterAttributeKey } from "../../generators/index.ts";
import { slug } from "../minds.ts";
import { classify, place, populatedPrimaryBuckets } from "./formation-classifier.ts";

/** Virtual time a build takes: long enough to watch `building` in real-clock mode, short enough to wait for. */
export const BUILD_STEP_MS = 1200;
export const BUILD_TOTAL_MS = 3000;
/** A build with no progress for this long is stalled and re-queued by the next listing at offset 0. */
export const STALL_MS = 60_000;
export const FAILURE_REASON = "Fewer than two subgroups received members";
const EMPTY_REASON = "The audience has no members to categorize";

export const JOB_STEP = "formations.buildStep";
export const JOB_COMPLETE = "formations.buildComplete";

interface BuildPayload {
  formationId: string;
  seq: number;
}

function members(state: State, audience: AudienceRecord): MindRecord[] {
  return audience.memberIds.flatMap((id) => state.minds.get(id) ?? []);
}

function isHypothesis(h: FormationRecord["hypothesis"]): h is FormationHypothesisRecord {
  return Array.isArray((h as FormationHypothesisRecord).subgroups);
}

/** Puts a Formation into `building` and schedules its build; any earlier build of it becomes stale. */
export function startBuild(s: Services, f: FormationRecord): void {
  const audience = s.state.audiences.get(f.audienceId);
  f.buildSeq += 1;
  f.status = "building";
  f.progress = { phase: "sorting", done: 0, total: audience?.memberIds.length ?? 0 };
  f.failureReason = null;
  f.updatedAt = s.clock.now();
  const payload: BuildPayload = { formationId: f.id, seq: f.buildSeq };
  s.schedule(BUILD_STEP_MS, JOB_STEP, payload);
  s.schedule(BUILD_TOTAL_MS, JOB_COMPLETE, payload);
}

/** The Formation a build job is for, or null when it was deleted or rebuilt since. */
function current(s: Services, payload: unknown): FormationRecord | null {
  const p = payload as BuildPayload;
  const f = s.state.formations.get(p.formationId);
  return f && f.deletedAt === null && f.status === "building" && f.buildSeq === p.seq ? f : null;
}

const step: JobHandler = (s, payload) => {
  const f = current(s, payload);
  if (!f?.progress) return;
  f.progress = { ...f.progress, phase: "sorting", done: Math.floor(f.progress.total / 2) };
  f.updatedAt = s.clock.now();
};

const complete: JobHandler = (s, payload) => {
  const f = current(s, payload);
  if (!f) return;
  finishBuild(s, f);
};

export function finishBuild(s: Services, f: FormationRecord): void {
  const audience = s.state.audiences.get(f.audienceId);
  const roster = audience ? members(s.state, audience) : [];
  f.updatedAt = s.clock.now();
  f.progress = null;
  if (!isHypothesis(f.hypothesis) || roster.length === 0) {
    f.status = "failed";
    f.failureReason = roster.length === 0 ? EMPTY_REASON : "The stored hypothesis is not usable";
    return;
  }
  const subgroups = classify(roster, f.hypothesis, `${f.id}:${f.buildSeq}`);
  if (populatedPrimaryBuckets(subgroups) >= 2) {
    f.status = "ready";
    f.subgroups = subgroups;
  } else {
    f.status = "failed";
    f.failureReason = FAILURE_REASON;
  }
}

export const formationJobs: Record<string, JobHandler> = { [JOB_STEP]: step, [JOB_COMPLETE]: complete };

/** True when a `building` Formation has no build job left that could finish it, or has not moved for long. */
export function isStalled(s: Services, f: FormationRecord): boolean {
  if (f.status !== "building" || f.deletedAt !== null) return false;
  if (s.clock.now() - f.updatedAt > STALL_MS) return true;
  for (const j of s.clock.pendingOf(JOB_COMPLETE)) {
    const p = j.payload as BuildPayload;
    if (p.formationId === f.id && p.seq === f.buildSeq) return false;
  }
  return true;
}

/** The stalled builds of an Audience, oldest first. Reads only. */
export function stalledBuilds(s: Services, audienceId: string): FormationRecord[] {
  return [...s.state.formations.values()]
    .filter((f) => f.audienceId === audienceId && isStalled(s, f))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/** Background effect of adding members: each new Mind is placed into every ready Formation. */
export function placeIntoReadyFormations(
  s: Services,
  audience: AudienceRecord,
  mindIds: readonly string[],
): void {
  for (const f of s.state.formations.values()) {
    if (
      f.audienceId !== audience.id ||
      f.deletedAt !== null ||
      f.status !== "ready" ||
      !isHypothesis(f.hypothesis)
    )
      continue;
    // One Mind added (the usual case) is looked for in place; a set of every placed member pays off only
    // when several are.
    const placed =
      mindIds.length > 1 ? new Set(f.subgroups.flatMap((g) => g.members.map((m) => m.mindId))) : null;
    for (const id of mindIds) {
      const mind = s.state.minds.get(id);
      if (!mind) continue;
      if (placed ? placed.has(id) : f.subgroups.some((g) => g.members.some((m) => m.mindId === id))) continue;
      const p = place(mind, f.hypothesis, `${f.id}:${f.buildSeq}`);
      let group = f.subgroups.find((g) => g.id === p.subgroupId);
      if (!group) {
        group = { id: p.subgroupId, label: "Other", definition: "Fits no proposed subgroup", members: [] };
        f.subgroups.push(group);
      }
      group.members.push({ mindId: id, confidence: p.confidence });
      placed?.add(id);
    }
    f.updatedAt = s.clock.now();
  }
}

/** Removing a member removes it from every Formation subgroup of that Audience at once. */
export function removeFromFormations(state: State, audienceId: string, mindId: string): void {
  for (const f of state.formations.values()) {
    if (f.audienceId !== audienceId) continue;
    for (const g of f.subgroups) {
      if (g.members.some((m) => m.mindId === mindId))
        g.members = g.members.filter((m) => m.mindId !== mindId);
    }
  }
}

/**
 * The canonical default split: `perspective`, or else the first filter attribute on which members differ,
 * with its values by frequency (at most 15 buckets).
 */
function defaultDimension(
  roster: readonly MindRecord[],
): { key: FilterAttributeKey; values: string[] } | null {
  for (const key of [
    "perspective",
    ...FILTER_ATTRIBUTE_KEYS.filter((k) => k !== "perspective"),
  ] as FilterAttributeKey[]) {
    const counts = new Map<string, number>();
    for (const m of roster) {
      const v = m.attributes[key];
      if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    if (counts.size < 2) continue;
    const values = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([v]) => v);
    return { key, values: values.slice(0, 15) };
  }
  return null;
}

function hypothesisFor(key: string, values: readonly string[]): FormationHypothesisRecord {
  const seen = new Set<string>();
  const subgroups = values.map((v, i) => {
    let id = slug(v);
    if (seen.has(id) || ["unanswered", "__unanswered", "__other"].includes(id)) id = `${id}-${i + 1}`;
    seen.add(id);
    return { id, label: v, definition: `Members whose ${key} is ${v}` };
  });
  return { intent: `Split the audience by ${key}`, subgroups };
}

export interface Seed {
  dimension: string;
  hypothesis: FormationHypothesisRecord;
  name: string;
}

/**
 * The canonical default Formation and the grounding-derived ones (one per chart whose dimension is a
 * filter attribute) that an Audience does not have yet. Reads only: a listing asks it to know whether it
 * will change anything.
 */
export function formationsToSeed(s: Services, audience: AudienceRecord): Seed[] {
  const existing = new Set<string>();
  for (const f of s.state.formations.values()) {
    if (f.audienceId === audience.id && f.deletedAt === null && f.autoDimension !== null) {
      existing.add(f.autoDimension);
    }
  }
  const wanted: Seed[] = [];
  // Every listing asks; once the default split exists, its dimension need not be worked out again.
  const dflt = existing.has("default") ? null : defaultDimension(members(s.state, audience));
  if (dflt) {
    existing.add("default");
    wanted.push({
      dimension: "default",
      hypothesis: hypothesisFor(dflt.key, dflt.values),
      name: `By ${dflt.key}`,
    });
  }
  for (const chart of audience.grounding?.charts ?? []) {
    if (!(FILTER_ATTRIBUTE_KEYS as readonly string[]).includes(chart.dimension)) continue;
    // As above: a dimension that has its Formation needs no hypothesis worked out; the first chart wins.
    if (existing.has(chart.dimension)) continue;
    const labels = chart.data
      .map((d) => d.label)
      .filter((l) => l !== "Other")
      .slice(0, 15);
    if (labels.length >= 2) {
      existing.add(chart.dimension);
      wanted.push({
        dimension: chart.dimension,
        hypothesis: hypothesisFor(chart.dimension, labels),
        name: chart.question,
      });
    }
  }
  return wanted;
}

/** Seeds the default and grounding-derived Formations an Audience lacks. Returns them, already building. */
export function seedDefaultFormations(
  s: Services,
  audience: AudienceRecord,
  creatorId: string,
  seeds: readonly Seed[] = formationsToSeed(s, audience),
): FormationRecord[] {
  return seeds.map((w) => {
    const f = newFormation(s, audience, creatorId, {
      name: w.name,
      hypothesis: w.hypothesis,
      visibility: "shared",
      autoDimension: w.dimension,
    });
    startBuild(s, f);
    return f;
  });
}

export interface FormationSpec {
  name: string;
  hypothesis: FormationHypothesisRecord;
  visibility: "shared" | "private";
  autoDimension?: string | null;
}

/** A Formation as it is created: building, with no subgroups yet. */
export function formationRecord(
  id: string,
  audienceId: string,
  creatorId: string,
  o: FormationSpec,
  now: number,
): FormationRecord {
  return {
    id,
    audienceId,
    creatorId,
    name: o.name,
    visibility: o.visibility,
    status: "building",
    autoDimension: o.autoDimension ?? null,
    hypothesis: o.hypothesis,
    subgroups: [],
    progress: null,
    failureReason: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    buildSeq: 0,
  };
}

export function newFormation(
  s: Services,
  audience: AudienceRecord,
  creatorId: string,
  o: FormationSpec,
): FormationRecord {
  const f = formationRecord(s.ids.uuid(), audience.id, creatorId, o, s.clock.now());
  s.state.formations.set(f.id, f);
  return f;
}
