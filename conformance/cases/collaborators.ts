/**
 * Collaborators, case by case: listed by every account on every Audience (managers only; 403
 * COLLABORATORS_MANAGER_ONLY for other viewers, 404 for those who cannot see), the owner not removable, a
 * pending invitee and someone who is no collaborator 404, malformed IDs.
 */
import type { Role } from "../lib/http/target.ts";
import {
  type Answer,
  type Case,
  type CaseWorld,
  coded,
  is,
  malformedAudienceId,
  NOBODY,
  ok,
  onAud,
  refused,
} from "./case.ts";
import { canView, EVERYONE, isManager, relation } from "./cast.ts";

const MANAGERS_ONLY = "COLLABORATORS_MANAGER_ONLY";

// ---- collaborators ----

function listCollaborators(role: Role, handle: string): Case {
  const r = relation(role, handle);
  const answers: Answer[] = isManager(r)
    ? [ok(200)]
    : canView(r)
      ? [coded(403, MANAGERS_ONLY)]
      : [refused(404)];
  return {
    id: `listCollaborators ${role} on ${handle}: ${isManager(r) ? "listed" : canView(r) ? "403, not a manager" : "404, hidden"}`,
    rule: canView(r) ? "collaborators/managers" : "access/hidden-as-404",
    op: "listCollaborators",
    as: role,
    request: onAud(handle),
    expect: (w) =>
      isManager(r) && handle === "main"
        ? [ok(200, { data: listsCollaborators(w) })]
        : isManager(r) && handle === "private"
          ? [ok(200, { data: is([]) })]
          : answers,
  };
}

/** Main's accepted collaborators (admin, member), the owner and a pending invitee (outsider) left out. */
const listsCollaborators = (w: CaseWorld) => {
  const want = (["admin", "member"] as const).map((r) => w.info.users[r]).filter((u): u is string => !!u);
  const never = (["owner", "outsider"] as const).map((r) => w.info.users[r]).filter((u): u is string => !!u);
  return {
    holds: (v: unknown) =>
      Array.isArray(v) &&
      want.every((id) => v.some((c) => c?.userId === id)) &&
      !v.some((c) => never.includes(c?.userId)) &&
      v.every((c, i) => i === 0 || String(v[i - 1]?.joinedAt) <= String(c?.joinedAt)),
    says: "does not list the accepted collaborators alone, oldest first (admin and member; not the owner, not a pending invitee)",
    breaks: (v: unknown) => (Array.isArray(v) ? v.filter((c) => c?.userId !== want[0]) : v),
  } as const;
};

function removeCollaborator(
  role: Role,
  who: (w: CaseWorld) => string,
  whom: string,
  expect: (r: ReturnType<typeof relation>) => Answer[],
): Case {
  const r = relation(role, "main");
  return {
    id: `removeCollaborator ${role} on main: removing ${whom}`,
    rule:
      whom === "the owner"
        ? "collaborators/owner-not-removable"
        : canView(r)
          ? "collaborators/managers"
          : "access/hidden-as-404",
    op: "removeCollaborator",
    as: role,
    changes: "main",
    request: (w) => ({ params: { audienceId: w.aud("main"), userId: who(w) } }),
    expect: expect(r),
  };
}

const hiddenOr = (r: ReturnType<typeof relation>, managed: Answer[]): Answer[] =>
  isManager(r) ? managed : canView(r) ? [coded(403, MANAGERS_ONLY)] : [refused(404)];

export const COLLABORATOR_CASES: Case[] = [
  ...EVERYONE.flatMap((r) => ["main", "private", "public"].map((h) => listCollaborators(r, h))),
  ...EVERYONE.map((r) =>
    removeCollaborator(
      r,
      (w) => w.user("owner"),
      "the owner",
      (rel) => hiddenOr(rel, [coded(400, "COLLABORATOR_IS_OWNER")]),
    ),
  ),
  ...(["owner", "admin", "member", "outsider"] as const).map((r) =>
    removeCollaborator(
      r,
      () => NOBODY,
      "someone who is no collaborator",
      (rel) => hiddenOr(rel, [refused(404)]),
    ),
  ),
  ...(["owner", "admin"] as const).map((r) =>
    removeCollaborator(
      r,
      (w) => w.user("outsider"),
      "someone whose invitation is pending",
      (rel) => hiddenOr(rel, [refused(404)]),
    ),
  ),
  ...(["member", "teammate", "studyViewer"] as const).map((r) =>
    removeCollaborator(
      r,
      (w) => w.user("admin"),
      "the admin",
      (rel) => hiddenOr(rel, []),
    ),
  ),
  malformedAudienceId("listCollaborators", "ids/malformed-400"),
  {
    id: "removeCollaborator owner on main: a malformed user ID",
    rule: "ids/malformed-400",
    op: "removeCollaborator",
    as: "owner",
    request: (w) => ({ params: { audienceId: w.aud("main"), userId: "not-a-uuid" } }),
    expect: [refused(400)],
  },
];
