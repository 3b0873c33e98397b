/**
 * How Formations are shown (description, "Formation", FormationSummary and "FormationHypothesis"), and the
 * hypothesis rules that creation, preview and presentation share.
 *
 * `formationDetail` is the GET form: the stored hypothesis (an empty object for an invalid legacy one),
 * live progress while building (null once done, and null when the stored progress is malformed), the
 * subgroups with member assignments, and a failure reason only when failed and only from the safe list.
 * `formationSummary` is the list item, whose fields beyond `id` the description does not show: a simulator
 * choice of name, status, visibility, timestamps and membership counts per subgroup.
 */
import { validate } from "../../contract/validate.ts";
import type {
  FormationHypothesisRecord,
  FormationRecord,
  FormationSubgroup,
} from "../../core/world/state.ts";
import { iso } from "../time.ts";
import { FAILURE_REASON } from "./formation-builds.ts";

/** Subgroup IDs the description reserves; a submitted ID is compared after trimming, case-sensitively. */
export const RESERVED_SUBGROUP_IDS: ReadonlySet<string> = new Set(["unanswered", "__unanswered", "__other"]);

const HYPOTHESIS_SCHEMA = "#/components/schemas/FormationHypothesis";

/**
 * True when a value satisfies the creation input rules: the contract's schema (non-empty trimmed strings,
 * 2 to 15 buckets, unique trimmed ids and labels) and reserved ids refused after trimming, which the
 * schema's exact `not: enum` cannot see.
 */
export function isValidHypothesis(value: unknown): value is FormationHypothesisRecord {
  if (validate(HYPOTHESIS_SCHEMA, value).length > 0) return false;
  return (value as FormationHypothesisRecord).subgroups.every((s) => !RESERVED_SUBGROUP_IDS.has(s.id.trim()));
}

/** The stored form of a valid hypothesis: trimmed strings and the known fields only. */
export function normalizeHypothesis(h: FormationHypothesisRecord): FormationHypothesisRecord {
  return {
    intent: h.intent.trim(),
    subgroups: h.subgroups.map((s) => ({
      id: s.id.trim(),
      label: s.label.trim(),
      definition: s.definition.trim(),
    })),
  };
}

// A type, not an interface: the contract's progress is an open object, which only a type alias fits.
export type ProgressView = {
  phase: string;
  done: number;
  total: number;
  percent: number;
};

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;

/** Live progress of a build; null when the stored value is not a well-formed `{ phase, done, total }`. */
export function presentProgress(progress: unknown): ProgressView | null {
  if (progress === null || typeof progress !== "object" || Array.isArray(progress)) return null;
  const { phase, done, total } = progress as Record<string, unknown>;
  if (typeof phase !== "string" || !isCount(done) || !isCount(total) || done > total) return null;
  return { phase, done, total, percent: total === 0 ? 0 : Math.floor((done * 100) / total) };
}

/** The reasons a build records; anything else stored is replaced by a generic one, never shown as is. */
const SAFE_FAILURE_REASONS: ReadonlySet<string> = new Set([
  FAILURE_REASON,
  "The audience has no members to categorize",
  "The stored hypothesis is not usable",
]);
export const GENERIC_FAILURE_REASON = "The Formation could not be built";

export function safeFailureReason(reason: string | null): string {
  return reason !== null && SAFE_FAILURE_REASONS.has(reason) ? reason : GENERIC_FAILURE_REASON;
}

/** Members assigned to any subgroup, each counted once. */
export function assignedMembers(subgroups: readonly FormationSubgroup[]): number {
  // A Mind sits in at most one subgroup of a Formation (a build sorts each member once; a member added later
  // is placed only where it is not yet; a copy keeps the split), so the count is a sum: every listing counts
  // every Formation's members, and a set of their IDs was most of what a listing allocated.
  let n = 0;
  for (const g of subgroups) n += g.members.length;
  return n;
}

export interface FormationSummaryView {
  id: string;
  name: string;
  status: FormationRecord["status"];
  visibility: FormationRecord["visibility"];
  createdAt: string;
  updatedAt: string;
  memberCount: number;
  subgroups: { id: string; label: string; memberCount: number }[];
}

export function formationSummary(f: FormationRecord): FormationSummaryView {
  return {
    id: f.id,
    name: f.name,
    status: f.status,
    visibility: f.visibility,
    createdAt: iso(f.createdAt),
    updatedAt: iso(f.updatedAt),
    memberCount: assignedMembers(f.subgroups),
    subgroups: f.subgroups.map((g) => ({ id: g.id, label: g.label, memberCount: g.members.length })),
  };
}

export interface FormationDetailView {
  id: string;
  name: string;
  status: FormationRecord["status"];
  progress: ProgressView | null;
  hypothesis: FormationHypothesisRecord | Record<string, never>;
  subgroups: {
    id: string;
    label: string;
    definition: string;
    memberCount: number;
    members: { mindId: string; confidence: number }[];
  }[];
  visibility: FormationRecord["visibility"];
  failureReason?: string;
  createdAt: string;
  updatedAt: string;
}

export function formationDetail(f: FormationRecord): FormationDetailView {
  const view: FormationDetailView = {
    id: f.id,
    name: f.name,
    status: f.status,
    progress: f.status === "building" ? presentProgress(f.progress) : null,
    hypothesis: isValidHypothesis(f.hypothesis) ? normalizeHypothesis(f.hypothesis) : {},
    subgroups: f.subgroups.map((g) => ({
      id: g.id,
      label: g.label,
      definition: g.definition,
      memberCount: g.members.length,
      members: g.members.map((m) => ({ mindId: m.mindId, confidence: m.confidence })),
    })),
    visibility: f.visibility,
    createdAt: iso(f.createdAt),
    updatedAt: iso(f.updatedAt),
  };
  if (f.status === "failed") view.failureReason = safeFailureReason(f.failureReason);
  return view;
}
