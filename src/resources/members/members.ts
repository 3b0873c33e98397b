/**
 * Audience members (description, "Audiences: members"). Owner only; everyone else gets the same 404 as a
 * missing Audience, decided before the body is read.
 *
 * Adding: exactly one of `mindId` / `mindIds`, and when both are present `mindId` wins and `mindIds` is
 * ignored, even when it is malformed. Every Mind must be the caller's or public, the Audience must stay
 * within the owner's member cap, and either all of the request applies or nothing does. The answer is
 * immediate; placement into ready Formations, seeding of default Formations and retraining of failed
 * members follow on the virtual clock.
 */

import { LIMITS } from "../../contract/limits.ts";
import { validatorFor } from "../../contract/validate.ts";
import { type ApiError, badRequest, notFound, planLimit } from "../../core/errors.ts";
import type { JobHandler, RequestContext, ResourceModule } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import { memberCap } from "../../core/world/plans.ts";
import type { AudienceRecord } from "../../core/world/state.ts";
import { owned } from "../access.ts";
import {
  placeIntoReadyFormations,
  removeFromFormations,
  seedDefaultFormations,
} from "../formations/formation-builds.ts";
import { retrainFailed } from "../progress/training.ts";

/** The ID limit, counted before deduplication. */
export const MAX_MIND_IDS = LIMITS.mindIdsBeforeDeduplication;
/** Virtual time after which the background effects of a membership change run. */
export const MEMBERS_EFFECTS_MS = 500;

export const JOB_ADDED = "members.added";
export const JOB_REMOVED = "members.removed";

/** Simulator decision: the retired field names, each with the field that replaced it. */
export const RETIRED_FIELDS: readonly (readonly [retired: string, replacement: string])[] = [
  ["sparkId", "mindId"],
  ["sparkIds", "mindIds"],
];

const MINDS_NOT_ACCESSIBLE = "One or more Minds not found or not accessible";

/** The contract's own UUID rule for a Mind ID, compiled once. */
const isMindId = (value: unknown): value is string =>
  typeof value === "string" &&
  validatorFor("#/components/schemas/AddMembersRequest/properties/mindId")(value);

/** A field sent as `null` is present (and, being no UUID, invalid): the contract types both as non-null. */
const present = (body: Record<string, unknown>, key: string): boolean => Object.hasOwn(body, key);

/**
 * Reads an add-members body into the requested Mind IDs (before deduplication), or the description's
 * 400 for it. `mindId` is looked at first and, when present, decides alone.
 */
export function interpretAddBody(body: unknown): { ids: string[] } | { error: ApiError } {
  if (body === undefined) return { error: badRequest("mindId or mindIds is required") };
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return { error: badRequest("Invalid request body", { reason: "The body must be a JSON object" }) };
  }
  const b = body as Record<string, unknown>;
  if (present(b, "mindId")) {
    return isMindId(b.mindId) ? { ids: [b.mindId] } : { error: badRequest("Invalid mind ID format") };
  }
  if (present(b, "mindIds")) {
    const ids = b.mindIds;
    if (!Array.isArray(ids)) return { error: badRequest("mindIds must be an array of Mind IDs") };
    if (ids.length === 0) return { error: badRequest("At least one Mind ID is required") };
    if (ids.length > MAX_MIND_IDS) {
      return { error: badRequest(`At most ${MAX_MIND_IDS} Mind IDs are allowed`) };
    }
    if (!ids.every(isMindId)) return { error: badRequest("Invalid mind ID format") };
    return { ids };
  }
  for (const [retired, replacement] of RETIRED_FIELDS) {
    if (Object.hasOwn(b, retired)) {
      return { error: badRequest(`${retired} is no longer supported; use ${replacement}`) };
    }
  }
  return { error: badRequest("mindId or mindIds is required") };
}

interface EffectsPayload {
  audienceId: string;
  mindIds: string[];
}

function scheduleEffects(ctx: RequestContext, kind: string, audience: AudienceRecord, mindIds: string[]) {
  const payload: EffectsPayload = { audienceId: audience.id, mindIds };
  ctx.schedule(MEMBERS_EFFECTS_MS, kind, payload);
}

/** Background work after an addition: place, seed when the Audience has no default Formation, retrain. */
const added: JobHandler = (s: Services, payload) => {
  const p = payload as EffectsPayload;
  const audience = s.state.audiences.get(p.audienceId);
  if (!audience) return;
  const members = new Set(audience.memberIds);
  // A Mind removed again before this ran is not placed anywhere.
  placeIntoReadyFormations(
    s,
    audience,
    p.mindIds.filter((id) => members.has(id)),
  );
  if (!hasDefaultFormation(s, audience.id) && audience.memberIds.length > 0)
    seedDefaultFormations(s, audience, audience.ownerId);
  retrainFailed(s, audience);
};

/** Scanned in place: every addition's job asks, and copying every Formation into an array first cost more. */
function hasDefaultFormation(s: Services, audienceId: string): boolean {
  for (const f of s.state.formations.values())
    if (f.audienceId === audienceId && f.deletedAt === null && f.autoDimension !== null) return true;
  return false;
}

const removed: JobHandler = (s: Services, payload) => {
  const audience = s.state.audiences.get((payload as EffectsPayload).audienceId);
  if (audience) retrainFailed(s, audience);
};

const ownerOnly = (ctx: RequestContext): void =>
  void owned(ctx.state, ctx.params.audienceId ?? "", ctx.caller);

export const members: ResourceModule = {
  routes: {
    addMembers: {
      authorize: ownerOnly,
      invalidBody: (_issues, body) => {
        const r = interpretAddBody(body);
        // A valid `mindId` wins: whatever the schema says about `mindIds` no longer matters.
        return "error" in r ? r.error : null;
      },
      handler: (ctx) => {
        const audience = owned(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
        const r = interpretAddBody(ctx.hasBody ? ctx.body : undefined);
        if ("error" in r) throw r.error;
        // UUIDs are case-insensitive: `ABC…` and `abc…` name the same Mind.
        const distinct = [...new Set(r.ids.map((id) => id.toLowerCase()))];
        for (const id of distinct) {
          const mind = ctx.state.minds.get(id);
          if (!mind || (mind.ownerId !== ctx.caller.id && !mind.isPublic))
            throw notFound(MINDS_NOT_ACCESSIBLE);
        }
        const current = new Set(audience.memberIds);
        const fresh = distinct.filter((id) => !current.has(id));
        const cap = memberCap(ctx.caller);
        if (audience.memberIds.length + fresh.length > cap) {
          throw planLimit("groupMembers", ctx.caller.plan, cap, audience.memberIds.length);
        }
        if (fresh.length > 0) {
          audience.memberIds.push(...fresh);
          audience.updatedAt = ctx.clock.now();
        }
        scheduleEffects(ctx, JOB_ADDED, audience, fresh);
        return { status: 200, body: { data: { added: distinct.length } } };
      },
    },
    removeMember: {
      authorize: ownerOnly,
      handler: (ctx) => {
        const audience = owned(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
        const mindId = (ctx.params.mindId ?? "").toLowerCase();
        const at = audience.memberIds.indexOf(mindId);
        if (at >= 0) {
          audience.memberIds.splice(at, 1);
          removeFromFormations(ctx.state, audience.id, mindId);
          audience.updatedAt = ctx.clock.now();
        }
        scheduleEffects(ctx, JOB_REMOVED, audience, at >= 0 ? [mindId] : []);
        return { status: 204 };
      },
    },
  },
  jobs: { [JOB_ADDED]: added, [JOB_REMOVED]: removed },
};
