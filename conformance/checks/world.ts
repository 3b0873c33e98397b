/**
 * The whole API as one model (conformance/world/): keys of two accounts, one Audience seen by every role,
 * its members, Formations and checkout sessions, changed in any order and re-read wherever each change
 * shows. `--replay FILE` runs a saved failing sequence instead of drawing new ones.
 */

import { limits } from "../lib/description/contract.ts";
import { accountOf } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import { type CheckContext, check } from "../lib/running/context.ts";
import { loadSequence, type ShrinkBudget, WorldRunner } from "../world/run.ts";
import type { Cast, Step } from "../world/steps.ts";

function castOf(ctx: CheckContext): Cast {
  const has = (r: Role) => ctx.target.has(r);
  const second = (["solo", "publisher", "teammate"] as Role[]).find(has);
  const minds = ["ownLoose", "publicMind", "mainMember", "foreignMind"].filter((h) => ctx.info.minds[h]);
  return {
    accounts: ["owner", ...(second ? [second] : [])],
    viewers: (["owner", "admin", "member", "teammate", "studyViewer", "outsider"] as Role[]).filter(has),
    minds: minds.map((h) => ctx.target.mind(h)),
    addable: minds.filter((h) => h !== "foreignMind").length,
    prefixes: ctx.target.v1Prefixes(),
    removals:
      ctx.target.isSimulator &&
      ctx.info.mayReset &&
      !ctx.info.readOnly &&
      Boolean(ctx.info.users.admin && ctx.info.users.member),
  };
}

/** One sequence that takes every kind of step, in an order where each rule of the model shows. */
function script(cast: Cast, sessions: boolean): Step[] {
  const other = cast.accounts[1] ?? "owner";
  const steps: Step[] = [
    { k: "createKey", as: "owner", prefix: 0 },
    { k: "createKey", as: other, prefix: 1 },
    { k: "createKey", as: "owner", prefix: 1 },
    { k: "listKeys", as: other },
    { k: "deleteKey", as: other, key: 0, prefix: 0 },
    { k: "deleteKey", as: "owner", key: 0, prefix: 1 },
    { k: "useKey", key: 0 },
    { k: "deleteKey", as: "owner", key: 0, prefix: 0 },
    { k: "listKeys", as: "owner" },
    { k: "put", as: "owner", isPublic: true, prefix: 0 },
    { k: "follow", as: "outsider", undo: false },
    { k: "createFormation", as: "outsider", subgroups: 2 },
    { k: "createFormation", as: "member", subgroups: 3 },
    { k: "put", as: "admin", isSharedWithTeam: false, prefix: 1 },
    { k: "put", as: "owner", isSharedWithTeam: false, isPublic: "string", prefix: 1, rename: true },
    { k: "view", as: "teammate", prefix: 1, preview: true },
    { k: "exportReport", as: "teammate" },
    { k: "exportReport", as: "admin" },
    { k: "createFormation", as: "teammate", subgroups: 2 },
    { k: "settle" },
    { k: "formation", as: "member", f: 1, op: "recompute" },
    { k: "settle" },
    { k: "put", as: "owner", isPublic: false, isSharedWithTeam: true, prefix: 0 },
    { k: "formation", as: "outsider", f: 0, op: "get" },
    { k: "formation", as: "studyViewer", f: 1, op: "delete" },
    { k: "formation", as: "teammate", f: 2, op: "recompute" },
    { k: "formation", as: "admin", f: 1, op: "delete" },
    { k: "listFormations", as: "member", limit: 2 },
    { k: "follow", as: "outsider", undo: true },
    { k: "deleteAudience", as: "admin" },
    { k: "deleteAudience", as: "studyViewer" },
    { k: "deleteAudience", as: "teammate" },
    { k: "addMembers", as: "admin", minds: [0], repeat: false },
    { k: "addMembers", as: "owner", minds: [0, 1], repeat: true },
    { k: "addMembers", as: "owner", minds: [0, 3], repeat: false },
    { k: "removeMember", as: "member", mind: 2 },
    { k: "removeMember", as: "owner", mind: 2 },
    { k: "duplicate", as: "teammate" },
    { k: "duplicate", as: "studyViewer" },
    { k: "addMembers", as: "owner", minds: [2], repeat: false },
    { k: "settle" },
    { k: "removeMember", as: "owner", mind: 0 },
    { k: "view", as: "owner", prefix: 1, preview: false },
    { k: "listCollaborators", as: "member" },
    { k: "listCollaborators", as: "admin" },
  ];
  if (cast.removals)
    steps.push(
      { k: "removeCollaborator", as: "teammate", who: "member" },
      { k: "removeCollaborator", as: "admin", who: "owner" },
      { k: "createFormation", as: "member", subgroups: 2 },
      { k: "removeCollaborator", as: "admin", who: "member" },
      { k: "view", as: "member", prefix: 1, preview: false },
      { k: "formation", as: "member", f: 99, op: "get" },
      { k: "put", as: "member", prefix: 0 },
      { k: "removeCollaborator", as: "admin", who: "member" },
      { k: "removeCollaborator", as: "member", who: "admin" },
    );
  if (sessions)
    steps.push(
      { k: "createSession", as: "owner" },
      { k: "session", as: other, s: 0, op: "cancel" },
      { k: "replaySession", s: 0, sameBody: true },
      { k: "replaySession", s: 0, sameBody: false },
      { k: "session", as: "owner", s: 0, op: "complete" },
      { k: "session", as: "owner", s: 0, op: "cancel" },
      { k: "session", as: "owner", s: 0, op: "refresh" },
      { k: "session", as: "owner", s: 0, op: "complete" },
    );
  const known = new Set<string>([...cast.viewers, ...cast.accounts]);
  return steps.filter((s) => !("as" in s) || known.has(s.as));
}

const RANDOM_SEQUENCES = 50;
const MAX_STEPS = 14;

/**
 * A quick run's share of random sequences: as many as every account's window still holds, each costed
 * at the scripted sequence's requests per step times the longest sequence.
 */
function sequencesWithin(ctx: CheckContext, scriptSteps: number): number {
  const limit = ctx.info.rateLimitPerMinute ?? limits().rateLimitPerMinute;
  const spent = new Map<string, number>();
  for (const [label, n] of ctx.client.sent)
    if (label !== "none") spent.set(accountOf(label), (spent.get(accountOf(label)) ?? 0) + n);
  let runs = RANDOM_SEQUENCES;
  for (const [account, n] of spent) {
    const perSequence = (n / scriptSteps) * MAX_STEPS;
    const left = (ctx.client.remaining(account) ?? limit) - Math.ceil(limit / 10);
    runs = Math.min(runs, Math.floor(left / perSequence));
  }
  return Math.max(1, runs);
}

/**
 * How long, and how many requests, a failure may be shrunk: every try re-runs a sequence. Against a
 * deployment the budget is smaller in requests (its accounts' windows are the contract's 300 a minute) and
 * a verdict should not wait long for a shorter sequence.
 */
function shrinkBudget(ctx: CheckContext): ShrinkBudget {
  const set = Number(process.env.CONFORMANCE_SHRINK_MS);
  const ms =
    Number.isFinite(set) && process.env.CONFORMANCE_SHRINK_MS
      ? set
      : ctx.target.isSimulator
        ? 20_000
        : 30_000;
  // Shrinking shares the run's time budget: it leaves the run a few seconds to report.
  return {
    ms: Math.max(0, Math.min(ms, ctx.budgetLeft() - 5_000)),
    requests: ctx.target.isSimulator ? 3_000 : 250,
  };
}

export const world = check(
  "stateful/world",
  [
    "keys/delete-immediate",
    "keys/own-account-only",
    "keys/secret-once",
    "keys/listing-order",
    "audience/read-roles",
    "audience/member-role",
    "audience/sharing-fields",
    "audience/update-rules",
    "audience/team-share-owner",
    "audience/delete-owner-only",
    "audience/follow",
    "members/add-rules",
    "members/remove-rules",
    "members/counts-follow",
    "formations/visibility",
    "formations/mutability",
    "formations/lifecycle",
    "formations/pagination",
    "preview/persists-nothing",
    "checkout/own-sessions",
    "checkout/lifecycle",
    "checkout/idempotency",
    "versioning/prefixes",
    "collaborators/managers",
    "collaborators/owner-not-removable",
    "collaborators/removal-revokes",
    "duplicate/contents",
    "exports/kinds",
  ],
  {
    title:
      "any order of changes, by every role, on every prefix: each answer and re-read agree with one model",
    needs: { roles: ["owner"], changeable: ["main"] },
    mutates: true,
    async run(ctx) {
      const cast = castOf(ctx);
      const sessions = Boolean(ctx.info.prices.credits);
      const runner = new WorldRunner(ctx, cast, ctx.target.audience("main"));
      const replay = process.env.CONFORMANCE_REPLAY;
      if (replay) {
        const outcome = await runner.runSequence(loadSequence(replay));
        if (outcome.found.length) runner.report(outcome, null, false);
      } else {
        const steps = script(cast, sessions);
        const scripted = await runner.runSequence(steps);
        if (scripted.found.length) runner.report(await runner.shrink(scripted, shrinkBudget(ctx)), null);
        else {
          const runs = ctx.info.quick ? sequencesWithin(ctx, steps.length) : ctx.numRuns(RANDOM_SEQUENCES);
          if (ctx.info.quick && runs < RANDOM_SEQUENCES)
            ctx.partly(
              `${runs} random sequence${runs === 1 ? "" : "s"} of ${RANDOM_SEQUENCES}, what the accounts' windows had left after the scripted one`,
            );
          await runner.explore("world sequences", runs, MAX_STEPS, shrinkBudget(ctx));
        }
      }
      await runner.verify();
    },
  },
);
