/**
 * Formations: list, create, read, delete, recompute (description, "Audiences: Formations" and "States and
 * transitions: Formation status"). The preview lives in formation-preview.ts; builds on the virtual clock
 * in formation-builds.ts, whose jobs this module registers.
 *
 * Access: the Audience must be viewable (404 otherwise, `Formation not found` on the listing and on single
 * Formations, `Audience not found` on creation). Shared Formations are visible to every viewer, private
 * ones only to their creator. Collaborators may mutate shared Formations and their own private ones;
 * other viewers only their own private ones. Anything else is the same 404 as a missing Formation.
 */

import { LIMITS } from "../../contract/limits.ts";
import { badRequest, notFound, withCode } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { AudienceRecord, FormationRecord, State } from "../../core/world/state.ts";
import { type AudienceRole, isCollaborator, viewable } from "../access.ts";
import { formationsView } from "./dashboard.ts";
import {
  formationJobs,
  formationsToSeed,
  isStalled,
  newFormation,
  type Seed,
  seedDefaultFormations,
  stalledBuilds,
  startBuild,
} from "./formation-builds.ts";
import {
  formationDetail,
  formationSummary,
  isValidHypothesis,
  normalizeHypothesis,
} from "./formation-view.ts";

export const FORMATION_NOT_FOUND = "Formation not found";
export const INVALID_FORMATION_INPUT = "Invalid Formation input";
export const NO_MEMBERS = "Audience has no members to categorize";
/** Formation create and preview work on at most this many members (contract `x-member-limits`). */
export const MAX_FORMATION_MEMBERS = LIMITS.formationMembersMax;
export const FORMATION_CAP_MESSAGE = `Formations support at most ${MAX_FORMATION_MEMBERS} members`;
export const DEFAULT_PAGE_SIZE = LIMITS.formationPage;
/** Stalled builds re-queued per listing at offset 0 (contract `x-background-recovery-limit`). */
export const RECOVERY_LIMIT = LIMITS.backgroundRecovery;
/** Longest default name, ellipsis included. */
export const NAME_MAX = 60;

const audienceIdOf = (ctx: RequestContext): string => ctx.params.audienceId ?? "";

/**
 * A compact name from an intent: trimmed, whitespace collapsed, and when longer than NAME_MAX cut at a
 * word boundary (a single overlong word is cut where it must be) with an ellipsis.
 */
export function compactName(intent: string): string {
  const text = intent.trim().replace(/\s+/g, " ");
  if (text.length <= NAME_MAX) return text;
  const room = text.slice(0, NAME_MAX - 1);
  const boundary = text[NAME_MAX - 1] === " " ? room.length : room.lastIndexOf(" ");
  const head = boundary > 0 ? room.slice(0, boundary) : room;
  return `${head.trimEnd()}…`;
}

const visibleTo = (f: FormationRecord, userId: string): boolean =>
  f.visibility === "shared" || f.creatorId === userId;

function mayMutate(f: FormationRecord, role: AudienceRole, userId: string): boolean {
  return f.visibility === "shared" ? isCollaborator(role) : f.creatorId === userId;
}

/** The Formation named by the path, if the caller may see it; 404 `Formation not found` otherwise. */
function visibleFormation(ctx: RequestContext): { formation: FormationRecord; role: AudienceRole } {
  const { audience, role } = viewable(ctx.state, audienceIdOf(ctx), ctx.caller, FORMATION_NOT_FOUND);
  const f = ctx.state.formations.get(ctx.params.formationId ?? "");
  if (!f || f.audienceId !== audience.id || f.deletedAt !== null || !visibleTo(f, ctx.caller.id))
    throw notFound(FORMATION_NOT_FOUND);
  return { formation: f, role };
}

/** Like `visibleFormation`, but only when the caller may delete or recompute it. */
function mutableFormation(ctx: RequestContext): FormationRecord {
  const { formation, role } = visibleFormation(ctx);
  if (!mayMutate(formation, role, ctx.caller.id)) throw notFound(FORMATION_NOT_FOUND);
  return formation;
}

// ---------------------------------------------------------------------------------------------- list

const STATUS_RANK: Readonly<Record<FormationRecord["status"], number>> = { ready: 0, building: 1, failed: 2 };

/** Newest first; the ID breaks ties so the order is total and stable. */
function newestFirst(a: FormationRecord, b: FormationRecord): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * What a caller's listing holds before pagination: shared plus own private, not deleted, and one row per
 * auto dimension (ready over building over failed, then the newest).
 */
export function listedFormations(state: State, audienceId: string, userId: string): FormationRecord[] {
  const rows: FormationRecord[] = [];
  const byDimension = new Map<string, FormationRecord>();
  for (const f of state.formations.values()) {
    if (f.audienceId !== audienceId || f.deletedAt !== null || !visibleTo(f, userId)) continue;
    if (f.autoDimension === null) {
      rows.push(f);
      continue;
    }
    const kept = byDimension.get(f.autoDimension);
    const better =
      !kept ||
      STATUS_RANK[f.status] < STATUS_RANK[kept.status] ||
      (STATUS_RANK[f.status] === STATUS_RANK[kept.status] && newestFirst(f, kept) < 0);
    if (better) byDimension.set(f.autoDimension, f);
  }
  return [...rows, ...byDimension.values()].sort(newestFirst);
}

/** What recovery on a first page would do: collaborators' missing Formations, and stalled builds. */
interface Recovery {
  seeds: Seed[];
  stalled: FormationRecord[];
}

/** Reads only. A part that cannot be worked out (a corrupt chart) is nothing to do: recovery is best effort. */
function recoveryOf(ctx: RequestContext, audience: AudienceRecord, role: AudienceRole): Recovery {
  const attempt = <T>(work: () => T[]): T[] => {
    try {
      return work();
    } catch {
      return [];
    }
  };
  return {
    seeds: isCollaborator(role) ? attempt(() => formationsToSeed(ctx, audience)) : [],
    stalled: attempt(() => stalledBuilds(ctx, audience.id)),
  };
}

/**
 * Listings whose purity test found nothing to recover: their handler, which runs at once, need not look
 * again. One that found work looks again in its turn among the changes, where the state may have moved on.
 */
const nothingFound = new WeakSet<RequestContext>();

/**
 * A first page whose recovery would find nothing (the usual case) changes nothing: it is answered as a
 * pure read, outside the serial section and without dropping what other reads derived.
 */
function nothingToRecover(ctx: RequestContext): boolean {
  const offset = typeof ctx.queryValues.offset === "number" ? ctx.queryValues.offset : 0;
  if (offset !== 0) return true;
  const { audience, role } = viewable(ctx.state, audienceIdOf(ctx), ctx.caller, FORMATION_NOT_FOUND);
  const { seeds, stalled } = recoveryOf(ctx, audience, role);
  if (seeds.length > 0 || stalled.length > 0) return false;
  nothingFound.add(ctx);
  return true;
}

/** Seeds and re-queues (at most RECOVERY_LIMIT of the oldest stalled builds). Neither may fail the listing. */
function recover(ctx: RequestContext, audience: AudienceRecord, role: AudienceRole): void {
  if (nothingFound.has(ctx)) return;
  const { seeds, stalled } = recoveryOf(ctx, audience, role);
  try {
    if (seeds.length > 0) seedDefaultFormations(ctx, audience, audience.ownerId, seeds);
  } catch {
    // Recovery is best effort: the listing answers with what exists.
  }
  try {
    for (const f of stalled.slice(0, RECOVERY_LIMIT)) startBuild(ctx, f);
  } catch {
    // As above.
  }
}

function listFormations(ctx: RequestContext) {
  const { audience, role } = viewable(ctx.state, audienceIdOf(ctx), ctx.caller, FORMATION_NOT_FOUND);
  const limit = typeof ctx.queryValues.limit === "number" ? ctx.queryValues.limit : DEFAULT_PAGE_SIZE;
  const offset = typeof ctx.queryValues.offset === "number" ? ctx.queryValues.offset : 0;
  if (offset === 0) recover(ctx, audience, role);
  const rows = listedFormations(ctx.state, audience.id, ctx.caller.id);
  const page = rows.slice(offset, offset + limit);
  const hasMore = offset + page.length < rows.length;
  return {
    status: 200,
    body: {
      data: page.map(formationSummary),
      pagination: {
        total: rows.length,
        limit,
        offset,
        hasMore,
        nextOffset: hasMore ? offset + page.length : null,
      },
    },
  };
}

// -------------------------------------------------------------------------------------------- create

function createFormation(ctx: RequestContext) {
  const { audience, role } = viewable(ctx.state, audienceIdOf(ctx), ctx.caller);
  const body = ctx.body as { hypothesis?: unknown; name?: unknown };
  // The schema has checked most of this; reserved ids after trimming are the rule it cannot say.
  if (!isValidHypothesis(body.hypothesis)) throw badRequest(INVALID_FORMATION_INPUT);
  if (body.name !== undefined && typeof body.name !== "string") throw badRequest(INVALID_FORMATION_INPUT);
  const members = audience.memberIds.length;
  if (members === 0) throw badRequest(NO_MEMBERS);
  if (members > MAX_FORMATION_MEMBERS) throw withCode(400, FORMATION_CAP_MESSAGE, "FORMATION_CAP");
  const hypothesis = normalizeHypothesis(body.hypothesis);
  const given = typeof body.name === "string" ? body.name.trim() : "";
  const f = newFormation(ctx, audience, ctx.caller.id, {
    name: given === "" ? compactName(hypothesis.intent) : given,
    hypothesis,
    visibility: isCollaborator(role) ? "shared" : "private",
  });
  startBuild(ctx, f);
  return { status: 200, body: { data: { id: f.id, name: f.name, status: f.status } } };
}

// ---------------------------------------------------------------------------------------- recompute

function recomputeFormation(ctx: RequestContext) {
  const f = mutableFormation(ctx);
  // A build that is still running is left to finish; ready, failed and stalled ones start again.
  if (f.status !== "building" || isStalled(ctx, f)) {
    // An invalid legacy hypothesis is shown as `{}` already; stored that way, its build fails safely.
    if (!isValidHypothesis(f.hypothesis)) f.hypothesis = {};
    startBuild(ctx, f);
  }
  return { status: 200, body: { data: { id: f.id, status: f.status } } };
}

export const formations: ResourceModule = {
  view: formationsView,
  routes: {
    listFormations: { pure: nothingToRecover, handler: listFormations },
    createFormation: {
      // Access first: a caller who may not see the Audience learns nothing from the body checks.
      authorize: (ctx) => void viewable(ctx.state, audienceIdOf(ctx), ctx.caller),
      invalidBody: () => badRequest(INVALID_FORMATION_INPUT),
      handler: createFormation,
    },
    getFormation: {
      handler: (ctx) => ({ status: 200, body: { data: formationDetail(visibleFormation(ctx).formation) } }),
    },
    deleteFormation: {
      handler: (ctx) => {
        const f = mutableFormation(ctx);
        f.deletedAt = ctx.clock.now();
        return { status: 204 };
      },
    },
    recomputeFormation: { handler: recomputeFormation },
  },
  jobs: formationJobs,
};
