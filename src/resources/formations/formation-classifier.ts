/**
 * The deterministic stand-in for the model that sorts members into a hypothesis's buckets.
 *
 * A member goes to the subgroup whose label and definition share the most words with its profile
 * (headline, bio, attribute values). Where nothing overlaps, a stable hash of member and hypothesis picks
 * a bucket with low confidence, as a model guessing would; a few such members land in `__other`, the
 * non-primary bucket, so a hypothesis that fits nobody can fail the "two populated buckets" rule.
 */

import type { FormationHypothesisRecord, FormationSubgroup, MindRecord } from "../../core/world/state.ts";
import { hashSeed } from "../../generators/prng.ts";

export const OTHER_BUCKET = "__other";

const STOP = new Set([
  "the",
  "and",
  "for",
  "with",
  "who",
  "that",
  "are",
  "from",
  "their",
  "they",
  "this",
  "into",
  "have",
]);

/** The words of a text that can say something about a member (shared with the scenario tests). */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w.length > 2 && !STOP.has(w)) out.add(w);
  return out;
}

function mindText(m: MindRecord): string {
  return `${m.headline} ${m.bio} ${Object.values(m.attributes).join(" ")}`;
}

export interface Placement {
  subgroupId: string;
  confidence: number;
}

export function place(mind: MindRecord, hypothesis: FormationHypothesisRecord, salt: string): Placement {
  const mw = words(mindText(mind));
  const scores = hypothesis.subgroups.map((s) => {
    let n = 0;
    for (const w of words(`${s.label} ${s.definition}`)) if (mw.has(w)) n++;
    return n;
  });
  const best = Math.max(...scores);
  const h = hashSeed(0x5eed, `${salt}:${mind.id}`);
  if (best === 0) {
    if (h % 100 < 8) return { subgroupId: OTHER_BUCKET, confidence: 0.3 };
    const s = hypothesis.subgroups[h % hypothesis.subgroups.length];
    return { subgroupId: s?.id ?? OTHER_BUCKET, confidence: round(0.35 + (h % 20) / 100) };
  }
  const winners = scores.flatMap((sc, i) => (sc === best ? [i] : []));
  const pick = winners[h % winners.length] as number;
  const second = Math.max(0, ...scores.filter((_, i) => i !== pick));
  const confidence = Math.min(0.98, 0.55 + 0.1 * best + 0.1 * (best - second));
  return { subgroupId: (hypothesis.subgroups[pick] as { id: string }).id, confidence: round(confidence) };
}

/** Sorts every member into the hypothesis's buckets; `__other` is appended only when it has members. */
export function classify(
  members: readonly MindRecord[],
  hypothesis: FormationHypothesisRecord,
  salt: string,
): FormationSubgroup[] {
  const groups: FormationSubgroup[] = hypothesis.subgroups.map((s) => ({ ...s, members: [] }));
  const other: FormationSubgroup = {
    id: OTHER_BUCKET,
    label: "Other",
    definition: "Fits no proposed subgroup",
    members: [],
  };
  const byId = new Map(groups.map((g) => [g.id, g]));
  for (const m of members) {
    const p = place(m, hypothesis, salt);
    (byId.get(p.subgroupId) ?? other).members.push({ mindId: m.id, confidence: p.confidence });
  }
  return other.members.length > 0 ? [...groups, other] : groups;
}

/** A build succeeds when at least two primary (proposed) buckets have members. */
export function populatedPrimaryBuckets(subgroups: readonly FormationSubgroup[]): number {
  return subgroups.filter((s) => s.id !== OTHER_BUCKET && s.members.length > 0).length;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
