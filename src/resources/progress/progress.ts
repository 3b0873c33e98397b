/**
 * Audience progress (description, "Audiences: progress"): every member's training, the Audience's
 * readiness, its background research and its coverage, as of the virtual clock's now.
 *
 * Any viewer may read it (owner, collaborators, team members, public and Study-cascade viewers); the ID is
 * read as a plain string, so an unknown or malformed ID names nothing and answers 404 `Audience not found`.
 *
 * Readiness is computed from the members' public `update` objects only (`readinessOf`), so the summary can
 * never disagree with the rows above it. Simulator decisions where the description is silent:
 * - `ready` counts the members whose row says they can chat (`readyToChat`), whatever their training:
 *   `isReady` is "every member can chat" and `learning` "ready members still learning" in the
 *   description, so the summary and the rows never disagree (a member retrained after a recalibration
 *   added it can chat while it learns). A member that failed for good no longer answers (the description's
 *   `startsNow`): its row says `readyToChat: false` and it counts nowhere (`failed` is always 0).
 * - `training` counts members queued or running (a member being repaired is reported as queued).
 * - `leftOut` is the members still being prepared (the `training` count): a Study started now runs
 *   without them and they join when ready.
 * - `isReady` and `fullyTrained` are false for an Audience without members; so is `startsNow`.
 * - `research` is present once the Audience has research state (Go deeper has run or is queued) and
 *   omitted before; `coverage` is always present and null when the Audience has none.
 */

import type { components } from "../../contract/types.gen.ts";
import { EncodedJson, encodedBy, KeptBy, KeptByRecords } from "../../core/request/encoded-json.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { AudienceRecord, MindRecord, ResearchState, State } from "../../core/world/state.ts";
import { viewable } from "../access.ts";
import { membersOf } from "../audiences/audience-view.ts";
import { isoOrNull } from "../time.ts";
import { type TrainingView, trainingView } from "./training.ts";

/** The contract's readiness object (generated from openapi.json). */
export type Readiness = components["schemas"]["Readiness"];

/** What readiness reads from each member: its progress `update` object. */
export type MemberUpdate = Pick<TrainingView, "readyToChat" | "learningInBackground" | "trainingStatus">;

/**
 * Pure: the readiness summary of members' `update` objects.
 *
 * - training: `queued` or `running` (a member being repaired is reported as `queued`, so it counts here);
 * - ready: can chat now (`readyToChat`), training or not; learning: ready and `learningInBackground`;
 * - startsNow: nothing is training, at least one member answers, and at least half of them do.
 */
export function readinessOf(updates: readonly MemberUpdate[]): Readiness {
  const total = updates.length;
  let ready = 0;
  let training = 0;
  let learning = 0;
  for (const u of updates) {
    if (u.trainingStatus === "queued" || u.trainingStatus === "running") training++;
    if (u.readyToChat) {
      ready++;
      if (u.learningInBackground) learning++;
    }
  }
  const isReady = total > 0 && ready === total;
  return {
    total,
    ready,
    training,
    failed: 0,
    isReady,
    startsNow: training === 0 && ready >= 1 && ready * 2 >= total,
    leftOut: training,
    learning,
    fullyTrained: isReady && learning === 0,
  };
}

export function researchView(r: ResearchState) {
  return {
    phase: r.phase,
    status: r.status,
    stage: r.stage,
    progress: r.progress,
    startedAt: isoOrNull(r.startedAt),
    completedAt: isoOrNull(r.completedAt),
    // Views are serialized as soon as they are made, so they may hold the state's own values: a copy
    // here cost more than the rest of the progress answer.
    outcome: r.outcome,
  };
}

export type CoverageCounts = { sourced: number; proxy: number; assumed: number; missing: number };

export function coverageCounts(rows: NonNullable<AudienceRecord["coverage"]>): CoverageCounts {
  const counts: CoverageCounts = { sourced: 0, proxy: 0, assumed: 0, missing: 0 };
  for (const row of rows) counts[row.status]++;
  return counts;
}

/** An Audience's coverage as progress shows it. */
function coverageView(rows: NonNullable<AudienceRecord["coverage"]>) {
  return {
    dimensions: rows.map((row) => ({
      dimension: row.dimension,
      status: row.status,
      distribution: row.distribution,
    })),
    counts: coverageCounts(rows),
  };
}

// Coverage changes only as a whole (a new array in place of the old: recalibration's refreshCoverage), so
// its view is encoded once per array; its shares were most of what stringifying progress cost.
const coverages = encodedBy(coverageView);

/** A member's row: its training as the description shows it, and the row's JSON, made once per record. */
interface MemberRow {
  update: TrainingView;
  json: EncodedJson<{ mindId: string; update: TrainingView }>;
}

// A Mind record is never changed in place (src/core/world/state.ts): a training move is a new record, so a row
// kept by record is never stale, and every read of progress lays the rows in as bytes.
const rows = new KeptBy((mind: MindRecord): MemberRow => {
  const update = trainingView(mind);
  return { update, json: EncodedJson.of({ mindId: mind.id, update }) };
});

// The rows and readiness of a member list, made once per list (the latest two of each Audience): progress
// is read again and again while the list stays, and training moves replace the records it is keyed by.
const memberRows = new KeptByRecords((minds: readonly MindRecord[]) => {
  const members = minds.map((m) => rows.of(m));
  return {
    json: EncodedJson.array(members.map((m) => m.json)).joined(),
    readiness: readinessOf(members.map((m) => m.update)),
  };
});

/** The progress document of an Audience at virtual time `now`. */
export function progressOf(state: State, audience: AudienceRecord, now: number) {
  const members = memberRows.of(audience, membersOf(state, audience));
  return EncodedJson.object({
    audienceId: audience.id,
    members: members.json,
    readiness: members.readiness,
    ...(audience.research !== null ? { research: researchView(audience.research) } : {}),
    coverage: audience.coverage === null ? null : coverages.of(audience.coverage),
    reconciledAt: now,
  });
}

const viewableAudience = (ctx: RequestContext): AudienceRecord =>
  viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller).audience;

export const progress: ResourceModule = {
  routes: {
    getAudienceProgress: {
      // As of the clock's now (`reconciledAt`): rendered anew for each request.
      pure: true,
      volatile: true,
      authorize: (ctx) => void viewableAudience(ctx),
      handler: (ctx) => ({
        status: 200,
        body: EncodedJson.object({ data: progressOf(ctx.state, viewableAudience(ctx), ctx.clock.now()) }),
      }),
    },
  },
};
