/**
 * Direct collaborators (admin, member): listed to managers only, removed by managers only, and a removed
 * one loses access at once, everywhere the model looks (the views, edits, Formations). Removal cannot be
 * undone through the API, so the runner resets the simulator after a sequence that removed someone.
 */
import type { CheckContext } from "../lib/running/context.ts";
import { canView, isListedCollaborator, isManager, type World } from "./model.ts";
import type { Cast, Step } from "./steps.ts";

type S<K extends Step["k"]> = Extract<Step, { k: K }>;

export async function listCollaborators(c: CheckContext, w: World, cast: Cast, s: S<"listCollaborators">) {
  const ex = await c.call({ op: "listCollaborators", params: { audienceId: w.audienceId }, as: c.as(s.as) });
  const expected = !canView(w, s.as) ? 404 : isManager(w, s.as) ? 200 : 403;
  if (!c.expectStatus(ex, expected, "collaborators/managers", `${s.as} listing collaborators`)) return;
  if (expected === 403)
    c.expectCode(ex, 403, "COLLABORATORS_MANAGER_ONLY", "collaborators/managers", "a non-manager");
  if (expected !== 200) return;
  const listed = new Set(((ex.body?.data ?? []) as { userId: string }[]).map((r) => r.userId));
  for (const role of cast.viewers) {
    const id = c.info.users[role];
    if (!id || !["owner", "admin", "member"].includes(role)) continue;
    c.expect(
      listed.has(id) === isListedCollaborator(w, role),
      "collaborators/managers",
      `the list ${listed.has(id) ? "holds" : "lacks"} ${role}${w.removed.has(role) ? ", removed a moment ago" : ""}`,
      ex,
    );
  }
}

export async function removeCollaborator(c: CheckContext, w: World, cast: Cast, s: S<"removeCollaborator">) {
  const userId = c.info.users[s.who];
  if (!userId) return;
  const ex = await c.call({
    op: "removeCollaborator",
    params: { audienceId: w.audienceId, userId },
    as: c.as(s.as),
  });
  const expected = !canView(w, s.as)
    ? 404
    : !isManager(w, s.as)
      ? 403
      : s.who === "owner"
        ? 400
        : isListedCollaborator(w, s.who)
          ? 200
          : 404;
  const what = `${s.as} removing ${s.who}${w.removed.has(s.who) ? " (removed already)" : ""}`;
  // A manager removing itself: the description neither allows nor forbids it, so a refusal is taken too,
  // as long as nothing changes.
  if (s.as === s.who && expected === 200 && ex.status >= 400 && ex.status < 500) return;
  if (!c.expectStatus(ex, expected, "collaborators/managers", `${what}`)) return;
  if (expected === 400)
    c.expectCode(ex, 400, "COLLABORATOR_IS_OWNER", "collaborators/owner-not-removable", what);
  if (expected !== 200) return;
  c.expect(
    ex.body?.data?.success === true,
    "collaborators/removal-revokes",
    `removal answered ${JSON.stringify(ex.body?.data)}`,
    ex,
  );
  w.removed.add(s.who);
  c.coverage.transition("collaborator", "accepted", "removed");
  // At once: the removed person's own view and edit, and the manager's list.
  const view = await c.call({ op: "getAudience", params: { audienceId: w.audienceId }, as: c.as(s.who) });
  const expectedView = canView(w, s.who) ? 200 : 404;
  c.expect(
    view.status === expectedView,
    "collaborators/removal-revokes",
    `right after removal ${s.who} reads the Audience: ${view.status}, not ${expectedView}`,
    view,
  );
  const manager = cast.viewers.find((r) => isManager(w, r));
  if (manager) await listCollaborators(c, w, cast, { k: "listCollaborators", as: manager });
}
