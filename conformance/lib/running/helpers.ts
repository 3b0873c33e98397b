/** Small request helpers shared by the checks (valid hypotheses, member lists, cleanup of what was made). */

import type { CallSpec, Credentials, Exchange } from "../http/http.ts";
import type { Role } from "../http/target.ts";
import type { CheckContext, Needs } from "./context.ts";

export function hypothesis(n: number, tag = "g"): { intent: string; subgroups: object[] } {
  const words = ["senior", "junior", "manager", "director", "engineer", "buyer", "user", "founder"];
  return {
    intent: "Split the audience by seniority and role",
    subgroups: Array.from({ length: n }, (_, i) => ({
      id: `${tag}${i}`,
      label: `Group ${tag}${i}`,
      definition: `People who describe themselves as ${words[i % words.length]} (${i})`,
    })),
  };
}

/** The member Mind IDs of an Audience, from its detail, as `role` sees it. */
export async function memberIds(
  ctx: CheckContext,
  audienceId: string,
  role: Role = "owner",
): Promise<string[]> {
  const ex = await ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as(role) });
  const minds = ex.body?.data?.minds;
  return Array.isArray(minds) ? minds.map((m: { id: string }) => m.id) : [];
}

/** Deletes a Formation the check created, whatever happens to the check. */
export function deleteFormationLater(
  ctx: CheckContext,
  audienceId: string,
  formationId: string,
  role: Role = "owner",
) {
  ctx.defer(() => ctx.call({ op: "deleteFormation", params: { audienceId, formationId }, as: ctx.as(role) }));
}

/** Deletes an Audience copy the check created. */
export function deleteAudienceLater(ctx: CheckContext, audienceId: string, role: Role) {
  ctx.defer(() => ctx.call({ op: "deleteAudience", params: { audienceId }, as: ctx.as(role) }));
}

/** Deletes an API key the check created (with the key of `role`, the key's owner). */
export function deleteKeyLater(ctx: CheckContext, keyId: string, role: Role = "owner") {
  ctx.defer(() => ctx.call({ op: "deleteApiKey", params: { keyId }, as: ctx.as(role) }));
}

/** Removes a Mind from an Audience after the check, when it was not a member before. */
export function removeMemberLater(ctx: CheckContext, audienceId: string, mindId: string) {
  ctx.defer(() => ctx.call({ op: "removeMember", params: { audienceId, mindId }, as: ctx.as("owner") }));
}

export const ok = (ex: Exchange): boolean => ex.status >= 200 && ex.status < 300;

/** A JSON body padded with whitespace to exactly `bytes` bytes (still the same JSON value). */
export function padded(json: string, bytes: number): string {
  const len = Buffer.byteLength(json);
  if (len > bytes) throw new Error(`body already ${len} bytes`);
  return json.slice(0, -1) + " ".repeat(bytes - len) + json.slice(-1);
}

/** What a check that duplicates as the `duplicator` needs: the publisher and its public Audience. */
export const DUPLICATOR_NEEDS: Needs = { roles: ["publisher"], audiences: ["public"] };

/** Why a check that needs a copy could not judge it: what `duplicator` found no one for. */
export const NO_DUPLICATOR =
  "no copy can be made without a Mind cap: the target has neither the publisher and public nor the teammate and main";

/** Who may duplicate an Audience without running into a Mind cap: a team-plan caller and one they can edit. */
export function duplicator(ctx: CheckContext): { role: Role; audienceId: string } | null {
  const i = ctx.info;
  if (i.keys.publisher && i.audiences.public)
    return { role: "publisher", audienceId: ctx.target.audience("public") };
  if (i.keys.teammate && i.audiences.main)
    return { role: "teammate", audienceId: ctx.target.audience("main") };
  return null;
}

/** A new API key of `role`'s account, named after `tag` (the caller deletes it). */
export const newKey = (ctx: CheckContext, role: Role, tag: string): Promise<Exchange> =>
  ctx.call({ op: "createApiKey", as: ctx.as(role), json: { name: fresh(tag) } });

export function fresh(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Duplicates `audienceId` as `role`, under idempotency `key` when given; the copy is deleted after the check. */
export async function duplicateAs(
  ctx: CheckContext,
  audienceId: string,
  role: Role,
  json: unknown = {},
  key?: string,
): Promise<Exchange> {
  const ex = await ctx.call({
    op: "duplicateAudience",
    params: { audienceId },
    as: ctx.as(role),
    json,
    headers: key === undefined ? {} : { "x-service-idempotency-key": key },
  });
  if (ok(ex) && typeof ex.body?.data?.id === "string") deleteAudienceLater(ctx, ex.body.data.id, role);
  return ex;
}

/**
 * A private copy of `main` owned by the team-plan caller, deleted after the check: where checks of
 * background work (recalibration, research, readiness) run, since they change members and grounding and
 * so never touch the target's own Audience; and, being the check's own, where it may wait beside others.
 */
export const teammateCopy = (ctx: CheckContext, tag: string): Promise<Exchange> =>
  duplicateAs(ctx, ctx.target.audience("main"), "teammate", { name: `Conformance ${tag}` }, fresh(tag));

/** The owner's call of `op` on the target's `main` Audience: the request most checks vary. */
export const ownerOnMain = (
  ctx: CheckContext,
  op: string,
  more: Omit<CallSpec, "op" | "params" | "as"> = {},
) => ctx.call({ op, params: { audienceId: ctx.target.audience("main") }, as: ctx.as("owner"), ...more });

/** `role` reads the Audience `audienceId` with its members' preview, as the description's detail shows it. */
export const readAudience = (ctx: CheckContext, audienceId: string, role: Role): Promise<Exchange> =>
  ctx.call({ op: "getAudience", params: { audienceId }, as: ctx.as(role), query: { members: "preview" } });

/** A recalibration of `audienceId` asked for by `as` with `json` (an instruction, or topics to go deeper on). */
export const recalibrate = (
  ctx: CheckContext,
  audienceId: string,
  as: Credentials,
  json: Record<string, unknown>,
): Promise<Exchange> => ctx.call({ op: "recalibrateAudience", params: { audienceId }, as, json });
