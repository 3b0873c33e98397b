/**
 * One Audience seen by every role: its sharing flags (PUT), who may read, edit, follow and delete it, and
 * its members. After every change the model re-reads the Audience where the change shows: each role's
 * view under both prefixes, the member list, the counts, the filter attributes, progress and Formations.
 */

import type { Exchange } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";
import { canEdit, canView, isCollaborator, memberRole, pick, type World } from "./model.ts";
import type { Cast, Flag, Step } from "./steps.ts";

type S<K extends Step["k"]> = Extract<Step, { k: K }>;

const RENAMED = " (renamed)";

const sent = (f: Flag | undefined, now: boolean): unknown => (f === "string" ? String(!now) : f);

/** Each role's view of the Audience, against the model. */
async function observeViews(c: CheckContext, w: World, cast: Cast, prefixIndex: number): Promise<void> {
  for (const [i, role] of cast.viewers.entries())
    await observeView(c, w, role, pick(cast.prefixes, prefixIndex + i), false);
}

async function observeView(c: CheckContext, w: World, role: Role, prefix: string, preview: boolean) {
  const ex = await c.call({
    op: "getAudience",
    params: { audienceId: w.audienceId },
    as: c.as(role),
    prefix,
    ...(preview ? { query: { members: "preview" } } : {}),
  });
  const expected = canView(w, role) ? 200 : 404;
  const state = `(isPublic ${w.isPublic}, isSharedWithTeam ${w.isSharedWithTeam})`;
  if (!c.expectStatus(ex, expected, "audience/read-roles", `${role} reading under ${prefix} ${state}`))
    return;
  if (expected !== 200) return;
  const d = ex.body?.data ?? {};
  c.expect(
    d.currentMemberRole === memberRole(w, role),
    "audience/member-role",
    `${role} ${state} sees currentMemberRole ${JSON.stringify(d.currentMemberRole)}, not ${memberRole(w, role)}`,
    ex,
  );
  c.expect(
    d.name === w.name,
    "audience/read-roles",
    `${role} reads name ${JSON.stringify(d.name)}; the model has ${JSON.stringify(w.name)}`,
    ex,
  );
  const collaborator = isCollaborator(w, role);
  for (const field of ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"])
    c.expect(
      field in d === collaborator,
      "audience/sharing-fields",
      `${field} is ${field in d ? "shown" : "missing"} for ${role} ${state}, a ${collaborator ? "collaborator" : "non-collaborator"}`,
      ex,
    );
  if (collaborator) {
    c.expect(
      d.isSharedWithTeam === w.isSharedWithTeam,
      "audience/update-rules",
      `${role} reads isSharedWithTeam ${JSON.stringify(d.isSharedWithTeam)}, the model has ${w.isSharedWithTeam}`,
      ex,
    );
    c.expect(
      d.isLinkSharingEnabled === w.isLinkSharingEnabled,
      "audience/update-rules",
      `${role} reads isLinkSharingEnabled ${JSON.stringify(d.isLinkSharingEnabled)}, the model has ${w.isLinkSharingEnabled}`,
      ex,
    );
  }
  if ("isPublic" in d)
    c.expect(
      d.isPublic === w.isPublic,
      "audience/update-rules",
      `${role} reads isPublic ${JSON.stringify(d.isPublic)}, the model has ${w.isPublic}`,
      ex,
    );
  if (role === "owner") checkMembers(c, w, ex, "detail");
}

function checkMembers(c: CheckContext, w: World, ex: Exchange, where: string): void {
  const minds = ex.body?.data?.minds;
  if (!Array.isArray(minds)) return;
  const ids = new Set(minds.map((m: { id: string }) => m.id));
  const missing = [...w.members].filter((id) => !ids.has(id));
  const extra = [...ids].filter((id) => !w.members.has(id));
  c.expect(
    missing.length === 0 && extra.length === 0,
    "members/counts-follow",
    `the ${where} lists ${ids.size} members; the model has ${w.members.size} (missing ${missing.join(",") || "none"}, extra ${extra.join(",") || "none"})`,
    ex,
  );
  const count = ex.body?.data?.mindCount;
  if (count !== undefined)
    c.expect(
      count === w.members.size,
      "members/counts-follow",
      `the ${where} says mindCount ${count}, the model has ${w.members.size}`,
      ex,
    );
}

export async function put(c: CheckContext, w: World, cast: Cast, s: S<"put">): Promise<void> {
  // A new name is sent inside whitespace: the description trims it, and it must show trimmed everywhere.
  const renamed = w.name.endsWith(RENAMED) ? w.name.slice(0, -RENAMED.length) : `${w.name}${RENAMED}`;
  const json: Record<string, unknown> = { name: s.rename ? `  ${renamed}\t` : w.name };
  if (s.isPublic !== undefined) json.isPublic = sent(s.isPublic, w.isPublic);
  if (s.isSharedWithTeam !== undefined) json.isSharedWithTeam = sent(s.isSharedWithTeam, w.isSharedWithTeam);
  const prefix = pick(cast.prefixes, s.prefix);
  const ex = await c.call({
    op: "updateAudience",
    params: { audienceId: w.audienceId },
    as: c.as(s.as),
    json,
    prefix,
  });
  const nextTeam = typeof json.isSharedWithTeam === "boolean" ? json.isSharedWithTeam : w.isSharedWithTeam;
  // "Only the owner may change isSharedWithTeam": a non-owner sending the value it already has changes
  // nothing, and the description does not say whether that is refused, so both answers are taken.
  const sameTeam =
    s.as !== "owner" && typeof json.isSharedWithTeam === "boolean" && nextTeam === w.isSharedWithTeam;
  const expected = !canEdit(w, s.as)
    ? 404
    : s.as !== "owner" && nextTeam !== w.isSharedWithTeam
      ? 403
      : sameTeam && ex.status === 403
        ? 403
        : 200;
  if (!c.expectStatus(ex, expected, "audience/update-rules", `${s.as} PUT ${JSON.stringify(json)}`))
    return observeViews(c, w, cast, s.prefix);
  if (expected === 403)
    c.expect(
      ex.body?.data?.code === "TEAM_SHARE_OWNER_ONLY",
      "audience/team-share-owner",
      `403 without data.code TEAM_SHARE_OWNER_ONLY`,
      ex,
    );
  if (expected === 200) {
    if (s.rename) w.name = renamed;
    if (typeof json.isPublic === "boolean") w.isPublic = json.isPublic;
    w.isSharedWithTeam = nextTeam;
    const d = ex.body?.data ?? {};
    for (const [field, value] of [
      ["name", w.name],
      ["isPublic", w.isPublic],
      ["isSharedWithTeam", w.isSharedWithTeam],
      ["isLinkSharingEnabled", w.isLinkSharingEnabled],
    ] as const)
      c.expect(
        d[field] === value,
        "audience/update-rules",
        `PUT ${JSON.stringify(json)} answered ${field} ${JSON.stringify(d[field])}, the model has ${value}`,
        ex,
      );
    c.expect(
      d.currentMemberRole === memberRole(w, s.as),
      "audience/member-role",
      `PUT by ${s.as} answered currentMemberRole ${d.currentMemberRole}`,
      ex,
    );
    checkMembers(c, w, ex, "PUT answer");
  }
  await observeViews(c, w, cast, s.prefix + 1);
}

export async function view(c: CheckContext, w: World, cast: Cast, s: S<"view">): Promise<void> {
  await observeView(c, w, s.as, pick(cast.prefixes, s.prefix), s.preview);
}

export async function follow(c: CheckContext, w: World, _cast: Cast, s: S<"follow">): Promise<void> {
  const op = s.undo ? "unfollowAudience" : "followAudience";
  const expected = s.undo || w.isPublic ? 200 : 404;
  for (const time of ["once", "twice"]) {
    const ex = await c.call({ op, params: { audienceId: w.audienceId }, as: c.as(s.as) });
    c.expectStatus(
      ex,
      expected,
      "audience/follow",
      `${s.as} ${s.undo ? "unfollowing" : "following"} (${time}; isPublic ${w.isPublic})`,
    );
  }
  if (!s.undo && w.isPublic) w.followers.add(s.as);
}

export async function deleteAudience(c: CheckContext, w: World, cast: Cast, s: S<"deleteAudience">) {
  const ex = await c.call({ op: "deleteAudience", params: { audienceId: w.audienceId }, as: c.as(s.as) });
  c.expectStatus(
    ex,
    404,
    "audience/delete-owner-only",
    `${s.as} (${canView(w, s.as) ? "who may read it" : "who may not read it"}) deleting the Audience`,
  );
  await observeView(c, w, "owner", pick(cast.prefixes, 0), false);
}

export async function addMembers(c: CheckContext, w: World, cast: Cast, s: S<"addMembers">): Promise<void> {
  const ids = [...new Set(s.minds.map((i) => pick(cast.minds, i)))];
  const foreign = ids.some((id) => cast.minds.indexOf(id) >= cast.addable);
  const body = s.repeat ? [...ids, ...ids] : ids;
  const ex = await c.call({
    op: "addMembers",
    params: { audienceId: w.audienceId },
    as: c.as(s.as),
    json: body.length === 1 ? { mindId: body[0] } : { mindIds: body },
  });
  const expected = s.as !== "owner" || foreign ? 404 : 200;
  if (
    c.expectStatus(
      ex,
      expected,
      "members/add-rules",
      `${s.as} adding ${ids.length} Mind(s)${foreign ? " (one not accessible)" : ""}`,
    ) &&
    expected === 200
  ) {
    c.expect(
      ex.body?.data?.added === ids.length,
      "members/add-rules",
      `added is ${ex.body?.data?.added} for ${ids.length} distinct IDs`,
      ex,
    );
    for (const id of ids) w.members.add(id);
  }
  await observeMembers(c, w);
}

export async function removeMember(c: CheckContext, w: World, _cast: Cast, s: S<"removeMember">) {
  const id = pick(_cast.minds, s.mind);
  const ex = await c.call({
    op: "removeMember",
    params: { audienceId: w.audienceId, mindId: id },
    as: c.as(s.as),
  });
  const expected = s.as === "owner" ? 204 : 404;
  if (
    c.expectStatus(
      ex,
      expected,
      "members/remove-rules",
      `${s.as} removing ${w.members.has(id) ? "a member" : "a non-member"}`,
    ) &&
    expected === 204
  )
    w.members.delete(id);
  await observeMembers(c, w, id);
}

/** Where members show: the detail, filter attributes, progress, and every Formation's assignments. */
export async function observeMembers(c: CheckContext, w: World, removed?: string): Promise<void> {
  const owner = c.as("owner");
  const params = { audienceId: w.audienceId };
  checkMembers(c, w, await c.call({ op: "getAudience", params, as: owner }), "detail");
  const filters = await c.call({ op: "getFilterAttributes", params, as: owner });
  const total = filters.body?.data?.totalMinds;
  if (filters.status === 200 && !filters.body?.data?.truncated)
    c.expect(
      total === w.members.size,
      "members/counts-follow",
      `filter attributes count totalMinds ${total}; the model has ${w.members.size} members`,
      filters,
    );
  const progress = await c.call({ op: "getAudienceProgress", params, as: owner });
  if (progress.status === 200) {
    const listed = new Set(
      ((progress.body?.data?.members ?? []) as { mindId: string }[]).map((m) => m.mindId),
    );
    const same = listed.size === w.members.size && [...w.members].every((id) => listed.has(id));
    c.expect(
      same,
      "members/counts-follow",
      `progress lists ${listed.size} members; the model has ${w.members.size}`,
      progress,
    );
    const readiness = progress.body?.data?.readiness?.total;
    c.expect(
      readiness === w.members.size,
      "members/counts-follow",
      `progress readiness.total is ${readiness}; the model has ${w.members.size} members`,
      progress,
    );
  }
  // The preview stream counts the members as they are now, not as they were.
  const stream = await c.call({
    op: "previewFormation",
    params,
    as: owner,
    json: {},
    headers: { accept: "application/x-ndjson" },
    timeoutMs: 20_000,
  });
  if (stream.status === 200) {
    const lines = stream.text.split("\n").filter((l) => l.trim() !== "");
    const meta = lines
      .map((l) => {
        try {
          return JSON.parse(l) as { type?: string; data?: { memberCount?: unknown } };
        } catch {
          return null;
        }
      })
      .find((e) => e?.type === "meta");
    c.expect(
      meta?.data?.memberCount === w.members.size,
      "members/counts-follow",
      `the preview stream's meta counts ${JSON.stringify(meta?.data?.memberCount)} members; the model has ${w.members.size}`,
      stream,
    );
  }
  await observeAssignments(c, w, removed);
}

/** No Formation assigns a Mind that is not a member; each subgroup's count agrees with its assignments. */
async function observeAssignments(c: CheckContext, w: World, removed?: string): Promise<void> {
  const owner = c.as("owner");
  const list = await c.call({ op: "listFormations", params: { audienceId: w.audienceId }, as: owner });
  const rows = (list.body?.data ?? []) as ListedRow[];
  const disagree: Disagreement[] = [];
  for (const row of rows.filter((r) => r.status === "ready").slice(0, 3)) {
    const ex = await c.call({
      op: "getFormation",
      params: { audienceId: w.audienceId, formationId: row.id },
      as: owner,
    });
    for (const g of subgroupsOf(ex)) {
      const ids = (g.members ?? []).map((m) => m.mindId);
      const strangers = ids.filter((id) => !w.members.has(id));
      c.expect(
        strangers.length === 0,
        "members/remove-rules",
        `Formation ${row.id} subgroup ${g.id} assigns ${strangers.length} non-member(s)${removed && strangers.includes(removed) ? ", the Mind just removed among them" : ""}`,
        ex,
      );
      if (g.members && typeof g.memberCount === "number")
        c.expect(
          g.memberCount === ids.length,
          "members/counts-follow",
          `Formation ${row.id} subgroup ${g.id} counts ${g.memberCount} but assigns ${ids.length}`,
          ex,
        );
      const summary = row.subgroups?.find((x) => x.id === g.id)?.memberCount;
      if (g.members && typeof summary === "number" && summary !== ids.length)
        disagree.push({ formationId: row.id, subgroup: g.id, listed: summary, assigned: ids.length });
    }
  }
  for (const d of await stillDisagreeing(c, w, disagree))
    c.expect(
      false,
      "members/counts-follow",
      `the Formation list counts ${d.listed} in ${d.formationId}/${d.subgroup}, the Formation assigns ${d.assigned}`,
      list,
    );
}

interface ListedRow {
  id: string;
  status?: string;
  subgroups?: { id: string; memberCount?: number }[];
}

interface Disagreement {
  formationId: string;
  subgroup: string;
  listed: number;
  assigned: number;
}

const subgroupsOf = (ex: { body?: unknown }) =>
  ((ex.body as { data?: { subgroups?: unknown } })?.data?.subgroups ?? []) as {
    id: string;
    memberCount?: number;
    members?: { mindId: string }[];
  }[];

/**
 * The disagreements between the list and the details that a second look repeats. On the simulator nothing
 * moves between two reads (its clock stands), so all of them; against a deployment, added members are
 * sorted into ready Formations in the background, in real time, and may land between the list and the
 * detail: the list and the details are read again together, once, and a list that moved meanwhile judges
 * nothing.
 */
async function stillDisagreeing(c: CheckContext, w: World, found: Disagreement[]): Promise<Disagreement[]> {
  if (found.length === 0 || c.target.isSimulator) return found;
  await c.target.advance(500);
  const owner = c.as("owner");
  const params = { audienceId: w.audienceId };
  const list = () => c.call({ op: "listFormations", params, as: owner });
  const first = await list();
  const details = new Map<string, ReturnType<typeof subgroupsOf>>();
  for (const id of new Set(found.map((d) => d.formationId)))
    details.set(
      id,
      subgroupsOf(await c.call({ op: "getFormation", params: { ...params, formationId: id }, as: owner })),
    );
  const again = await list();
  const countIn = (ex: Awaited<ReturnType<typeof list>>, d: Disagreement) =>
    ((ex.body?.data ?? []) as ListedRow[])
      .find((r) => r.id === d.formationId)
      ?.subgroups?.find((x) => x.id === d.subgroup)?.memberCount;
  return found.flatMap((d) => {
    const listed = countIn(first, d);
    const assigned = details.get(d.formationId)?.find((g) => g.id === d.subgroup)?.members?.length;
    if (listed !== countIn(again, d) || typeof listed !== "number" || typeof assigned !== "number") return [];
    return listed === assigned ? [] : [{ ...d, listed, assigned }];
  });
}

/** A copy holds the members the Audience has now, as new Minds, and is private. */
export async function duplicate(c: CheckContext, w: World, _cast: Cast, s: S<"duplicate">): Promise<void> {
  const ex = await c.call({
    op: "duplicateAudience",
    params: { audienceId: w.audienceId },
    as: c.as(s.as),
    json: {},
    headers: { "x-service-idempotency-key": `world-${Date.now().toString(36)}-${w.copies.length}` },
  });
  const expected = canEdit(w, s.as) ? 201 : canView(w, s.as) ? 403 : 404;
  if (ex.status === 201 && ex.body?.data?.id) w.copies.push({ id: ex.body.data.id, by: s.as });
  if (!c.expectStatus(ex, expected, "duplicate/contents", `${s.as} duplicating`)) return;
  if (expected !== 201) return;
  const copy = ex.body?.data ?? {};
  const ids = ((copy.minds ?? []) as { id: string }[]).map((m) => m.id);
  c.expect(
    ids.length === w.members.size && ids.every((id) => !w.members.has(id)),
    "duplicate/contents",
    `the copy holds ${ids.length} Minds (${ids.filter((id) => w.members.has(id)).length} of them the original's own); the Audience has ${w.members.size} members`,
    ex,
  );
  if (c.target.has("outsider")) {
    const peek = await c.call({ op: "getAudience", params: { audienceId: copy.id }, as: c.as("outsider") });
    c.expect(
      peek.status === 404,
      "duplicate/contents",
      `an outsider reads the private copy (${peek.status})`,
      peek,
    );
  }
}

/** Edit access decides the validation report, and it follows the sharing flags of the moment. */
export async function exportReport(
  c: CheckContext,
  w: World,
  _cast: Cast,
  s: S<"exportReport">,
): Promise<void> {
  const ex = await c.call({
    op: "exportAudience",
    params: { audienceId: w.audienceId },
    as: c.as(s.as),
    json: { kind: "validation_report", format: "md" },
  });
  const ok = canEdit(w, s.as) ? [200] : canView(w, s.as) ? [403, 404] : [404];
  c.expect(
    ok.includes(ex.status),
    "exports/kinds",
    `${s.as} (${canEdit(w, s.as) ? "an editor" : canView(w, s.as) ? "a reader who may not edit" : "no reader"}) exporting the validation report answered ${ex.status}, not ${ok.join(" or ")}`,
    ex,
  );
}
