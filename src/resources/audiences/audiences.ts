/**
 * Audiences: read, update, delete, duplicate, follow (description, "Audiences: read, update, delete" and
 * "Audiences: duplicate, follow"; Authentication rule 9).
 *
 * Access: GET for every role (`public_viewer` included); PUT for collaborators; DELETE for the owner;
 * duplicate for collaborators (viewers without edit access get 403 `Access denied`, others 404); follow for
 * public Audiences only. Callers with no role always get 404, so existence is never revealed.
 */

import { LIMITS } from "../../contract/limits.ts";
import type { ValidationIssue } from "../../contract/validate.ts";
import { ApiError, badRequest, forbidden, notFound, planLimit } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import { memberCap, mindCap } from "../../core/world/plans.ts";
import type {
  AudienceRecord,
  FormationRecord,
  MindRecord,
  State,
  UserRecord,
} from "../../core/world/state.ts";
import { editable, isCollaborator, owned, roleOf, viewable } from "../access.ts";
import { COMPLETED_TRAINING } from "../minds.ts";
import { asData, audienceDetail, audienceSummary, membersOf } from "./audience-view.ts";
import { audiencesView } from "./dashboard.ts";

export const COVER_IMAGE_JOB = "audiences.coverImage";
/** Virtual time a queued cover image takes to render. */
export const COVER_IMAGE_DELAY_MS = 2_000;
export const IDEMPOTENCY_HEADER = "x-service-idempotency-key";
export const MAX_IDEMPOTENCY_KEY = LIMITS.idempotencyKey;
export const MAX_DUPLICATE_NAME = LIMITS.duplicateName;
/** The copy marker appended to the original name when a duplicate is not named. */
export const COPY_SUFFIX = " (copy)";

const audienceId = (ctx: RequestContext): string => ctx.params.audienceId ?? "";

// ---------------------------------------------------------------------------------------------- PUT

function ownerInTeam(state: State, audience: AudienceRecord): boolean {
  const owner = state.users.get(audience.ownerId);
  return owner?.teamId != null && state.teams.has(owner.teamId);
}

function updateAudience(ctx: RequestContext) {
  const { audience, role } = editable(ctx.state, audienceId(ctx), ctx.caller);
  const body = ctx.body as Record<string, unknown>;
  const name = typeof body.name === "string" ? body.name.trim() : "";
  // The schema's trimmed minimum already refuses this; kept so the rule does not hinge on the schema.
  if (name === "") throw badRequest("name is required");
  const isPublic = typeof body.isPublic === "boolean" ? body.isPublic : undefined;
  const shared = typeof body.isSharedWithTeam === "boolean" ? body.isSharedWithTeam : undefined;
  // Sending the current value is not a change, so collaborators may echo what they read.
  if (shared !== undefined && shared !== audience.isSharedWithTeam && role !== "owner") {
    throw new ApiError(403, "Only the owner can change team sharing", { code: "TEAM_SHARE_OWNER_ONLY" });
  }
  if (shared === true && !ownerInTeam(ctx.state, audience)) {
    throw new ApiError(400, "Sharing requires the owner to be in a team", { code: "TEAM_REQUIRED" });
  }
  audience.name = name;
  if (shared !== undefined) audience.isSharedWithTeam = shared;
  if (isPublic !== undefined) {
    // Going public lists the Audience and queues its cover image; staying public queues nothing new.
    if (isPublic && !audience.isPublic) {
      audience.coverImageQueued = true;
      ctx.schedule(COVER_IMAGE_DELAY_MS, COVER_IMAGE_JOB, { audienceId: audience.id });
    }
    audience.isPublic = isPublic;
  }
  audience.updatedAt = ctx.clock.now();
  return { status: 200, body: asData(audienceSummary(ctx.state, audience, role)) };
}

// ------------------------------------------------------------------------------------------- DELETE

/**
 * Removes Minds and every reference to them: Audience memberships, Formation subgroup assignments,
 * idempotency records, other modules' records keyed by the Mind's ID (e.g. training runs) and pending
 * jobs whose payload names it. Knowledge and training state live on the Mind record itself.
 */
export function removeMinds(services: Services, ids: ReadonlySet<string>): void {
  if (ids.size === 0) return;
  const { state } = services;
  for (const id of ids) state.minds.delete(id);
  for (const a of state.audiences.values()) {
    if (a.memberIds.some((m) => ids.has(m))) a.memberIds = a.memberIds.filter((m) => !ids.has(m));
  }
  for (const f of state.formations.values()) {
    for (const sg of f.subgroups) {
      if (sg.members.some((x) => ids.has(x.mindId)))
        sg.members = sg.members.filter((x) => !ids.has(x.mindId));
    }
  }
  for (const [k, r] of state.idempotency) if (ids.has(r.resultId)) state.idempotency.delete(k);
  for (const t of state.extra.values()) for (const id of ids) t.delete(id);
  services.clock.cancel((job) => ids.has(payloadField(job.payload, "mindId") ?? ""));
}

function payloadField(payload: unknown, field: string): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const v = (payload as Record<string, unknown>)[field];
  return typeof v === "string" ? v : undefined;
}

/** The description's cascade: the caller's Minds that belong to no other Audience go with it. */
export function deleteAudienceCascade(
  services: Services,
  audience: AudienceRecord,
  caller: UserRecord,
): void {
  const { state } = services;
  const elsewhere = new Set<string>();
  for (const other of state.audiences.values()) {
    if (other.id !== audience.id) for (const m of other.memberIds) elsewhere.add(m);
  }
  const doomed = new Set<string>();
  for (const id of audience.memberIds) {
    const m = state.minds.get(id);
    if (m && m.ownerId === caller.id && !elsewhere.has(id)) doomed.add(id);
  }
  state.audiences.delete(audience.id);
  const formations = new Set<string>();
  for (const f of state.formations.values()) {
    if (f.audienceId === audience.id) formations.add(f.id);
  }
  for (const id of formations) state.formations.delete(id);
  for (const s of state.studies.values()) {
    if (s.audienceIds.includes(audience.id)) s.audienceIds = s.audienceIds.filter((a) => a !== audience.id);
  }
  for (const u of state.users.values()) {
    if (u.following.includes(audience.id)) u.following = u.following.filter((a) => a !== audience.id);
  }
  for (const [k, r] of state.idempotency) {
    if (r.resultId === audience.id || r.scope.endsWith(`:${audience.id}`)) state.idempotency.delete(k);
  }
  // Other modules' records keyed by the Audience's ID (queues, caches) describe nothing any more.
  for (const t of state.extra.values()) t.delete(audience.id);
  // Pending work on a deleted Audience or its Formations has nothing left to act on.
  services.clock.cancel(
    (job) =>
      payloadField(job.payload, "audienceId") === audience.id ||
      formations.has(payloadField(job.payload, "formationId") ?? ""),
  );
  removeMinds(services, doomed);
}

// ---------------------------------------------------------------------------------------- duplicate

/** The description's message for a bad duplicate name; anything else is not a JSON object. */
function invalidDuplicateBody(issues: ValidationIssue[]): ApiError {
  const name = issues.filter((i) => i.path === "/name");
  if (name.some((i) => i.code === "type")) return badRequest("name must be a string");
  if (name.length > 0) return badRequest(`name must be between 1 and ${MAX_DUPLICATE_NAME} characters`);
  return badRequest("Request body must be a JSON object");
}

/** The key when it counts: blank keys and keys over the contract's length are ignored, not rejected. */
function idempotencyKey(ctx: RequestContext): string | null {
  const raw = ctx.headers.get(IDEMPOTENCY_HEADER);
  if (raw === null || raw.trim() === "" || raw.length > MAX_IDEMPOTENCY_KEY) return null;
  return raw;
}

const idempotencySlot = (scope: string, key: string): string => `${scope}\n${key}`;

function copyMind(ctx: RequestContext, m: MindRecord, now: number): MindRecord {
  return {
    ...structuredClone(m),
    id: ctx.ids.uuid(),
    ownerId: ctx.caller.id,
    isPublic: false,
    knowledge: m.knowledge.map((k) => ({ ...k, id: ctx.ids.uuid() })),
    training: { ...COMPLETED_TRAINING },
    createdAt: now,
  };
}

function copyFormation(
  ctx: RequestContext,
  f: FormationRecord,
  copyId: string,
  ids: ReadonlyMap<string, string>,
  now: number,
): FormationRecord {
  const clone = structuredClone(f);
  return {
    ...clone,
    id: ctx.ids.uuid(),
    audienceId: copyId,
    creatorId: ctx.caller.id,
    subgroups: clone.subgroups.map((sg) => ({
      ...sg,
      members: sg.members.flatMap((a) => {
        const mindId = ids.get(a.mindId);
        return mindId === undefined ? [] : [{ mindId, confidence: a.confidence }];
      }),
    })),
    progress: null,
    createdAt: now,
    updatedAt: now,
  };
}

function duplicateAudience(ctx: RequestContext) {
  const { state, caller } = ctx;
  const { audience: source } = viewable(state, audienceId(ctx), caller);
  const key = idempotencyKey(ctx);
  const scope = `duplicate:${caller.id}:${source.id}`;
  const slot = key === null ? null : idempotencySlot(scope, key);
  if (slot !== null) {
    const earlier = state.idempotency.get(slot);
    const copy = earlier ? state.audiences.get(earlier.resultId) : undefined;
    if (copy) {
      const role = roleOf(state, copy, caller) ?? "owner";
      return { status: 200, body: asData(audienceDetail(state, copy, role, { preview: false })) };
    }
  }

  const members = membersOf(state, source);
  const ownedMinds = [...state.minds.values()].filter((m) => m.ownerId === caller.id).length;
  const sparks = mindCap(caller);
  if (ownedMinds + members.length > sparks) throw planLimit("sparks", caller.plan, sparks, ownedMinds);
  const perGroup = memberCap(caller);
  if (members.length > perGroup) throw planLimit("groupMembers", caller.plan, perGroup, members.length);

  const now = ctx.clock.now();
  const rawName = (ctx.body as { name?: string } | undefined)?.name;
  const name = rawName?.trim() || `${source.name}${COPY_SUFFIX}`;
  const copies = members.map((m) => copyMind(ctx, m, now));
  const idMap = new Map(members.map((m, i) => [m.id, (copies[i] as MindRecord).id]));
  const copy: AudienceRecord = {
    id: ctx.ids.uuid(),
    ownerId: caller.id,
    name,
    createdAt: now,
    updatedAt: now,
    isPublic: false,
    isSharedWithTeam: false,
    isLinkSharingEnabled: false,
    publicShareId: null,
    memberIds: copies.map((m) => m.id),
    collaborators: [],
    grounding: structuredClone(source.grounding),
    sources: structuredClone(source.sources),
    coverage: structuredClone(source.coverage),
    calibrationActive: false,
    research: null,
    validations: source.validations
      .filter((v) => v.status === "scored")
      .map((v) => ({ ...structuredClone(v), id: ctx.ids.uuid() })),
    coverImageQueued: false,
    topic: source.topic,
  };
  for (const m of copies) state.minds.set(m.id, m);
  state.audiences.set(copy.id, copy);
  // Running builds are jobs, not copied; another user's private Formation is not the caller's to copy.
  const formations = [...state.formations.values()].filter(
    (f) =>
      f.audienceId === source.id &&
      f.deletedAt === null &&
      f.status !== "building" &&
      (f.visibility === "shared" || f.creatorId === caller.id),
  );
  for (const f of formations) {
    const c = copyFormation(ctx, f, copy.id, idMap, now);
    state.formations.set(c.id, c);
  }
  if (slot !== null && key !== null) {
    state.idempotency.set(slot, { scope, key, resultId: copy.id, createdAt: now });
  }
  return { status: 201, body: asData(audienceDetail(state, copy, "owner", { preview: false })) };
}

// ------------------------------------------------------------------------------------------- module

export const audiences: ResourceModule = {
  view: audiencesView,
  routes: {
    getAudience: {
      pure: true,
      authorize: (ctx) => void viewable(ctx.state, audienceId(ctx), ctx.caller),
      handler: (ctx) => {
        const { audience, role } = viewable(ctx.state, audienceId(ctx), ctx.caller);
        const preview = ctx.queryValues.members === "preview";
        return { status: 200, body: asData(audienceDetail(ctx.state, audience, role, { preview })) };
      },
    },
    updateAudience: {
      authorize: (ctx) => void editable(ctx.state, audienceId(ctx), ctx.caller),
      invalidBody: () => badRequest("name is required"),
      handler: updateAudience,
    },
    deleteAudience: {
      authorize: (ctx) => void owned(ctx.state, audienceId(ctx), ctx.caller),
      handler: (ctx) => {
        deleteAudienceCascade(ctx, owned(ctx.state, audienceId(ctx), ctx.caller), ctx.caller);
        return { status: 204 };
      },
    },
    duplicateAudience: {
      authorize: (ctx) => {
        const { role } = viewable(ctx.state, audienceId(ctx), ctx.caller);
        if (!isCollaborator(role)) throw forbidden("Access denied");
      },
      invalidBody: invalidDuplicateBody,
      handler: duplicateAudience,
    },
    followAudience: {
      handler: (ctx) => {
        const a = ctx.state.audiences.get(audienceId(ctx));
        if (!a?.isPublic) throw notFound("Public audience not found");
        if (!ctx.caller.following.includes(a.id)) ctx.caller.following.push(a.id);
        return { status: 200, body: { data: { audienceId: a.id, following: true } } };
      },
    },
    unfollowAudience: {
      handler: (ctx) => {
        const id = audienceId(ctx);
        if (ctx.caller.following.includes(id))
          ctx.caller.following = ctx.caller.following.filter((a) => a !== id);
        return { status: 200, body: { data: { audienceId: id, following: false } } };
      },
    },
  },
  jobs: {
    [COVER_IMAGE_JOB]: (services, payload) => {
      const a = services.state.audiences.get(payloadField(payload, "audienceId") ?? "");
      if (a) a.coverImageQueued = false;
    },
  },
};
