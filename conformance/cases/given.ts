/**
 * Preconditions cases share: a key of one's own, a private copy, a Formation by a given viewer, an
 * Audience's state read first and put back after. Each holds its own requests to what they must answer:
 * a refusal of a request the description allows is reported under the case's rule, not passed over.
 */

import type { RuleId } from "../lib/description/rules.ts";
import type { Credentials, Exchange } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";
import { fresh, hypothesis, recalibrate } from "../lib/running/helpers.ts";
import { type Case, type CaseWorld, type Effect, is, type Later, type Made, ok, onAud } from "./case.ts";
import { ownerOf } from "./cast.ts";

/** An instruction every recalibration case sends: an adjustment, which keeps the Audience's size. */
export const REBALANCE = { instruction: "Rebalance slightly toward larger companies" };

/** Waits for `read` to say done: the virtual clock on the simulator, polling against a deployment. */
export function settled(
  ctx: CheckContext,
  read: () => Promise<boolean>,
  machine?: "formationBuild" | "recalibration" | "export" | "research",
): Promise<boolean> {
  return ctx.waitUntil(read, 1_000, machine);
}

/** How many Formations the owner lists on main: what a case that must make none compares with after. */
export async function mainFormations(ctx: CheckContext, w: CaseWorld): Promise<Made> {
  const ex = await ctx.call({
    op: "listFormations",
    params: { audienceId: w.aud("main") },
    as: ctx.as("owner"),
    query: { limit: 100 },
  });
  return ex.status === 200
    ? { made: { total: ex.body?.pagination?.total } }
    : refusedStep(ex, 200, "listing main's Formations");
}

/** The effect that shows no Formation was made: main's Formations, listed again, as many as before. */
export const noFormationMade: Effect = {
  what: "main's Formations, listed again",
  op: "listFormations",
  as: "owner",
  request: onAud("main", { query: { limit: 100, offset: 0 } }),
  expect: (w) => [ok(200, { "pagination.total": is(w.made.total) })],
};

/** The precondition stops here: `ex` should have answered `status`. */
export function refusedStep(ex: Exchange, status: number, what: string): Made {
  return { unmade: `${what} answered ${ex.status}, not ${status}`, refused: ex };
}

/** A key of `role`'s own account, deleted after the case (a 404 then: the case deleted it). */
export async function ownKey(ctx: CheckContext, role: Role, later: Later): Promise<Made> {
  const ex = await ctx.call({ op: "createApiKey", as: ctx.as(role), json: { name: fresh(`case-${role}`) } });
  if (ex.status !== 201) return refusedStep(ex, 201, `creating a key as ${role}`);
  const keyId = ex.body?.id as string;
  later(() => ctx.call({ op: "deleteApiKey", params: { keyId }, as: ctx.as(role) }));
  return { made: { keyId, key: ex.body?.key, role } };
}

/** What a precondition makes as `role` on the Audience `handle`, undone by `later`. */
type MadeOn = (ctx: CheckContext, w: CaseWorld, handle: string, role: Role, later: Later) => Promise<Made>;

/** `role`'s private copy of the Audience `handle`, deleted after the case. */
export const copyOf: MadeOn = async (ctx, w, handle, role, later) => {
  const ex = await ctx.call({
    op: "duplicateAudience",
    params: { audienceId: w.aud(handle) },
    as: ctx.as(role),
    json: { name: `Case copy of ${handle}` },
  });
  if (ex.status !== 201) return refusedStep(ex, 201, `${role} duplicating ${handle}`);
  const copy = ex.body?.data?.id as string;
  later(() => ctx.call({ op: "deleteAudience", params: { audienceId: copy }, as: ctx.as(role) }));
  return { made: { copy, copyName: ex.body?.data?.name, role } };
};

/** The teammate asks for a recalibration of the copy `copyOf` made them. */
export const recalibrateCopy = (
  ctx: CheckContext,
  copy: { made: Record<string, unknown> },
  json: Record<string, unknown>,
) => recalibrate(ctx, copy.made.copy as string, ctx.as("teammate"), json);

/** A Formation `role` makes on `handle` (shared for a collaborator, private otherwise), deleted after. */
export const formationBy: MadeOn = async (ctx, w, handle, role, later) => {
  const audienceId = w.aud(handle);
  const ex = await ctx.call({
    op: "createFormation",
    params: { audienceId },
    as: ctx.as(role),
    json: { hypothesis: hypothesis(2, "case"), name: fresh(`case-${role}`) },
  });
  if (ex.status !== 200) return refusedStep(ex, 200, `${role} creating a Formation on ${handle}`);
  const formationId = ex.body?.data?.id as string;
  later(async () => {
    const params = { audienceId, formationId };
    const gone = await ctx.call({ op: "deleteFormation", params, as: ctx.as(role) });
    if (gone.status !== 204 && gone.status !== 404 && ctx.info.keys.owner)
      await ctx.call({ op: "deleteFormation", params, as: ctx.as("owner") });
  });
  return { made: { formationId, audienceId, creator: role } };
};

/**
 * A case of `op` by `role` sending `json` to the Audience `handle`, which is kept as it was (`keepAudience`):
 * all but what it must answer and what is read after.
 */
export function keptWrite(
  op: string,
  role: Role,
  handle: string,
  what: string,
  rule: RuleId,
  json: (w: CaseWorld) => unknown,
): Omit<Case, "expect"> {
  return {
    id: `${op} ${role} on ${handle}: ${what}`,
    rule,
    op,
    as: role,
    changes: handle,
    given: (ctx, w, later) => keepAudience(ctx, w, handle, later),
    request: onAud(handle, (w) => ({ json: json(w) })),
  };
}

/** The owner's view of each Audience as a check last knew it: read once, read again only after a change. */
const views = new WeakMap<CheckContext, Map<string, Record<string, unknown>>>();

/**
 * The owner's view of `handle` (name, sharing flags, members), put back after the case when the case may
 * have moved it: a success, an answer past 4xx, or a finding (a server that refused and changed it anyway).
 * A refusal that found nothing changed nothing: the view is kept for the next case, unread.
 */
export async function keepAudience(
  ctx: CheckContext,
  w: CaseWorld,
  handle: string,
  later: Later,
): Promise<Made> {
  const audienceId = w.aud(handle);
  const owner = ownerOf(handle);
  const known = views.get(ctx) ?? new Map<string, Record<string, unknown>>();
  views.set(ctx, known);
  let view = known.get(handle);
  if (!view) {
    const ex = await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as(owner) });
    if (ex.status !== 200) return refusedStep(ex, 200, `${owner} reading ${handle}`);
    const d = ex.body?.data ?? {};
    view = {
      name: d.name,
      isPublic: d.isPublic,
      isSharedWithTeam: d.isSharedWithTeam,
      members: ((d.minds ?? []) as { id: string }[]).map((m) => m.id),
    };
    known.set(handle, view);
  }
  const state = view;
  later(async ({ answer, found }) => {
    const quiet = answer !== null && answer.status >= 400 && answer.status < 500 && !found;
    if (quiet) return;
    known.delete(handle);
    await putBack(ctx, audienceId, owner, state);
  });
  return { made: { ...state, owner } };
}

/** Puts an Audience back as `state` had it: its name and flags, and no member it did not have. */
async function putBack(ctx: CheckContext, audienceId: string, owner: Role, state: Record<string, unknown>) {
  const now = await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as(owner) });
  const n = now.body?.data ?? {};
  const flags = { name: state.name, isPublic: state.isPublic, isSharedWithTeam: state.isSharedWithTeam };
  if (n.name !== flags.name || n.isPublic !== flags.isPublic || n.isSharedWithTeam !== flags.isSharedWithTeam)
    await ctx.call({ op: "updateAudience", params: { audienceId }, as: ctx.as(owner), json: flags });
  const had = new Set(state.members as string[]);
  for (const m of (n.minds ?? []) as { id: string }[])
    if (!had.has(m.id))
      await ctx.call({ op: "removeMember", params: { audienceId, mindId: m.id }, as: ctx.as(owner) });
}

/** Runs the givens in order, joining what they made; the first that could not be made stops them. */
export async function all(...steps: (() => Promise<Made>)[]): Promise<Made> {
  const made: Record<string, unknown> = {};
  let as: Credentials | undefined;
  for (const step of steps) {
    const m = await step();
    if ("unmade" in m) return m;
    Object.assign(made, m.made);
    if (m.as) as = m.as;
  }
  return as ? { made, as } : { made };
}
