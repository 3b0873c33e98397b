/**
 * Every case of the kit, by the resource it asks about, and the checks that run them (a check a group:
 * `cases/keys`, `cases/audiences`, …). Each case judges one request of one rule in one world (case.ts).
 */
import type { CheckDef } from "../lib/running/context.ts";
import { AUDIENCE_CASES } from "./audiences.ts";
import type { Case } from "./case.ts";
import { CHECKOUT_CASES } from "./checkout.ts";
import { COLLABORATOR_CASES } from "./collaborators.ts";
import { COPY_CASES } from "./copies.ts";
import { SHARED_CASES } from "./envelope.ts";
import { FILTER_CASES } from "./filters.ts";
import { FORMATION_CASES } from "./formations.ts";
import { KEY_CASES } from "./keys.ts";
import { LATER_ACCOUNT_CASES } from "./later-accounts.ts";
import { LATER_EXPORT_CASES, LATER_RECALIBRATION_CASES } from "./later-work.ts";
import { LIFECYCLE_CASES } from "./lifecycles.ts";
import { MEMBER_CASES } from "./members.ts";
import { PREVIEW_CASES } from "./previews.ts";
import { caseCheck } from "./run.ts";
import { EXPORT_CASES, PROGRESS_CASES, RECALIBRATION_CASES } from "./work.ts";

export const CASE_GROUPS: Record<string, readonly Case[]> = {
  shared: SHARED_CASES,
  keys: KEY_CASES,
  audiences: [...AUDIENCE_CASES, ...COPY_CASES],
  collaborators: COLLABORATOR_CASES,
  members: MEMBER_CASES,
  filters: FILTER_CASES,
  formations: [...FORMATION_CASES, ...PREVIEW_CASES],
  progress: PROGRESS_CASES,
  recalibration: RECALIBRATION_CASES,
  exports: EXPORT_CASES,
  checkout: CHECKOUT_CASES,
  lifecycles: [...LIFECYCLE_CASES, ...LATER_EXPORT_CASES, ...LATER_ACCOUNT_CASES],
  "recalibration-over-time": LATER_RECALIBRATION_CASES,
};

export const ALL_CASES: readonly Case[] = Object.values(CASE_GROUPS).flat();

/** What each group's cases ask, in the line a run prints for its check. */
const TITLES: Record<keyof typeof CASE_GROUPS, string> = {
  shared: "what every operation shares: prefixes, the envelope, headers, optional bodies, media types, sizes",
  keys: "auth/me and key management by every account, plan and SSO link; names at their bounds; deletions",
  audiences: "every account reading, updating, deleting, following and duplicating every Audience",
  collaborators: "collaborators listed and removed by every account; the owner not removable",
  members: "members added and removed by every account; the body's rules, bounds and the plan's cap",
  filters: "filter attributes read by every account; selections, facets and the filters' bounds",
  formations: "Formations listed, paged, made, read, recomputed, deleted and previewed by every account",
  progress: "progress read by every account; readiness against its rows",
  recalibration: "recalibration by every account; its payload's refusals; operations through each path",
  exports: "exports by every account, every kind and format; the validation report's refusals",
  checkout: "checkout sessions by every account; the create body's rules; sessions of another account",
  lifecycles:
    "worlds made by earlier requests and by time: builds, exports, recalibrations, cascades, removals",
};

/** Groups whose cases work only on copies of their own: they may wait in real time beside the rest. */
const CONCURRENT = new Set(["recalibration-over-time"]);

export const caseChecks: CheckDef[] = Object.entries(CASE_GROUPS).map(([group, cases]) =>
  caseCheck(
    `cases/${group}`,
    cases,
    `${cases.length} cases: ${TITLES[group] ?? group}`,
    CONCURRENT.has(group),
  ),
);
