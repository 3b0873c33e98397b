/**
 * What recalibration does to an Audience: charts found or added, coverage refreshed, members grown or
 * rebuilt within the plan's caps, sources joined to the bundle.
 */

import type { Services } from "../../core/services.ts";
import { memberCap, mindCap } from "../../core/world/plans.ts";
import type { AudienceRecord, State } from "../../core/world/state.ts";
import {
  type Chart,
  type CoverageStatus,
  coverageFor,
  generateChart,
  generatePersona,
  STANDARD_DIMENSIONS,
  type StandardDimension,
  UPLOADED_FILE_URL_PREFIX,
} from "../../generators/index.ts";
import type { Rng } from "../../generators/prng.ts";
import { mindFromPersona, UNTRAINED } from "../minds.ts";
import { scheduleTraining } from "../progress/training.ts";
import { MARKERS, REBUILD_SHARE, type SourcesInput, type TopicResult } from "./records.ts";

/** `Company size`, `company_size` and `companySize` name the same dimension. */
export function normalise(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "");
}

export function canonicalDimension(topic: string): string {
  const key = normalise(topic);
  return STANDARD_DIMENSIONS.find((d) => normalise(d) === key) ?? topic.trim();
}

export function isStandard(dimension: string): dimension is StandardDimension {
  return (STANDARD_DIMENSIONS as readonly string[]).includes(dimension);
}

export function findChart(audience: AudienceRecord, dimension: string): Chart | undefined {
  const key = normalise(dimension);
  return audience.grounding?.charts.find((c) => normalise(c.dimension) === key);
}

export const hasCharts = (a: AudienceRecord): boolean => (a.grounding?.charts.length ?? 0) > 0;

export const chartRef = (c: Chart) => ({ id: c.id, dimension: c.dimension, question: c.question });

/** Adds a research source to the grounding (creating it) and returns its index. */
export function addResearchSource(rng: Rng, audience: AudienceRecord, label: string): number {
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
export function resolveTopic(
  rng: Rng,
  audience: AudienceRecord,
  topic: string,
  source: () => number,
): TopicResult {
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
export function refreshCoverage(rng: Rng, audience: AudienceRecord): void {
  const fresh = coverageFor(rng, audience.grounding?.charts ?? []).dimensions;
  const before = audience.coverage;
  audience.coverage = fresh.map((row) => {
    if (row.status === "sourced") return row;
    const old = before?.find((r) => r.dimension === row.dimension);
    return old && old.status !== "sourced" ? structuredClone(old) : row;
  });
}

export function statusOf(audience: AudienceRecord, dimension: string): CoverageStatus {
  return audience.coverage?.find((r) => r.dimension === dimension)?.status ?? "missing";
}

export function ownedMinds(state: State, userId: string): number {
  let n = 0;
  for (const m of state.minds.values()) if (m.ownerId === userId) n++;
  return n;
}

/** New members for an additive instruction, within the caps as they are when the operation completes. */
export function growMembers(s: Services, audience: AudienceRecord, wanted: number, rng: Rng): number {
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
export function rebuildMembers(s: Services, audience: AudienceRecord, rng: Rng): number {
  const own = audience.memberIds.filter((id) => s.state.minds.get(id)?.ownerId === audience.ownerId);
  if (own.length === 0) return 0;
  const n = Math.max(1, Math.round(own.length * REBUILD_SHARE));
  const chosen = rng.shuffle(own).slice(0, n);
  for (const id of chosen) scheduleTraining(s, id, { restart: true });
  return chosen.length;
}

export function joinSources(
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
