/**
 * What an Audience's owner alone may do to it, and what any account may ask of it besides reading: DELETE
 * by everyone but the owner (404, still there) and by the owner on its own copy; follow and unfollow on
 * public and private Audiences; copies made by editors and refused to viewers who may not edit, named as
 * asked or after the original, replayed under their idempotency key.
 */
import type { Role } from "../lib/http/target.ts";
import type { Answer, Case, CaseWorld, Later } from "./case.ts";
import { is, ok, onAud, onMade, ownerOn, PRESENT, refused, unknownAudienceId } from "./case.ts";
import { canView, EVERYONE, isCollaborator, ownerOf, relation } from "./cast.ts";
import { copyOf, keepAudience, refusedStep } from "./given.ts";

const NOT_FOUND = "Audience not found";

// ---- DELETE, follow, duplicate ----

function deleteRefused(role: Role, handle: string): Case {
  return {
    id: `deleteAudience ${role} on ${handle}: only the owner deletes (404, still there)`,
    rule: "audience/delete-owner-only",
    op: "deleteAudience",
    as: role,
    changes: handle,
    request: onAud(handle),
    expect: [refused(404, NOT_FOUND)],
    after: [
      {
        what: "the owner still reads it",
        op: "getAudience",
        as: ownerOf(handle),
        request: onAud(handle, { query: { members: "preview" } }),
        expect: [ok(200)],
      },
    ],
  };
}

const DELETES: Case[] = [
  ...EVERYONE.filter((r) => r !== "owner").map((r) => deleteRefused(r, "main")),
  deleteRefused("owner", "public"),
  {
    id: "deleteAudience teammate on its own copy: 204, then gone",
    rule: "audience/delete-owner-only",
    op: "deleteAudience",
    as: "teammate",
    given: (ctx, w, later) => copyOf(ctx, w, "main", "teammate", later),
    request: onMade("audienceId", "copy"),
    expect: [ok(204, { "": is(undefined) })],
    after: [
      {
        what: "reading the deleted copy",
        op: "getAudience",
        as: "teammate",
        request: onMade("audienceId", "copy"),
        expect: [refused(404, NOT_FOUND)],
      },
      {
        what: "deleting it again",
        op: "deleteAudience",
        as: "teammate",
        request: onMade("audienceId", "copy"),
        expect: [refused(404, NOT_FOUND)],
      },
    ],
  },
];

function follow(role: Role, handle: string): Case {
  const isPublic = handle === "public" || handle === "large";
  return {
    id: `followAudience ${role} on ${handle}: ${isPublic ? "followed" : "404, not a public Audience"}`,
    rule: "audience/follow",
    op: "followAudience",
    as: role,
    mutates: true,
    request: onAud(handle),
    expect: isPublic ? [ok(200)] : [refused(404)],
  };
}

const FOLLOWS: Case[] = [
  ...EVERYONE.map((r) => follow(r, "public")),
  ...(["owner", "admin", "outsider"] as const).map((r) => follow(r, "main")),
  follow("owner", "private"),
  unknownAudienceId("followAudience", "owner", "audience/follow", [refused(404)]),
  ...(["outsider", "owner"] as const).map(
    (role): Case => ({
      id: `unfollowAudience ${role} on main, never followed: 200`,
      rule: "audience/follow",
      op: "unfollowAudience",
      as: role,
      request: onAud("main"),
      expect: [ok(200)],
    }),
  ),
  unknownAudienceId(
    "unfollowAudience",
    "outsider",
    "audience/follow",
    [ok(200)],
    "an ID that names nothing is 200 all the same",
  ),
];

function duplicate(role: Role, handle: string): Case {
  const r = relation(role, handle);
  const answers: Answer[] = isCollaborator(r)
    ? [ok(201, { "data.id": PRESENT })]
    : canView(r)
      ? [refused(403)]
      : [refused(404)];
  return {
    id: `duplicateAudience ${role} on ${handle}: ${isCollaborator(r) ? "a copy" : canView(r) ? "403, may not edit" : "404, hidden"}`,
    rule: isCollaborator(r)
      ? "duplicate/contents"
      : canView(r)
        ? "duplicate/plan-limit"
        : "access/hidden-as-404",
    op: "duplicateAudience",
    as: role,
    request: onAud(handle, { json: { name: `Copy by ${role}` } }),
    expect: answers,
  };
}

const DUPLICATES: Case[] = [
  duplicate("teammate", "main"),
  duplicate("owner", "private"),
  duplicate("solo", "soloAudience"),
  duplicate("publisher", "public"),
  duplicate("studyViewer", "main"),
  duplicate("owner", "public"),
  duplicate("outsider", "public"),
  duplicate("outsider", "main"),
  duplicate("admin", "private"),
  {
    id: "duplicateAudience owner on private: a copy is private, named as asked, and has no public link",
    rule: "duplicate/contents",
    op: "getAudience",
    as: "owner",
    given: (ctx, w, later) => copyOf(ctx, w, "private", "owner", later),
    request: (w) => ({ params: { audienceId: w.made.copy as string }, query: { members: "preview" } }),
    expect: (w) => [
      ok(200, {
        "data.name": is(w.made.copyName),
        "data.isPublic": is(false),
        "data.isSharedWithTeam": is(false),
        "data.isLinkSharingEnabled": is(false),
        "data.publicShareId": is(null),
        "data.currentMemberRole": is("owner"),
      }),
    ],
  },
  {
    id: "duplicateAudience owner on private: the copy holds new Minds, as many as the original's members",
    rule: "duplicate/contents",
    op: "getAudience",
    as: "owner",
    given: async (ctx, w, later) => {
      const original = await keepAudience(ctx, w, "private", later);
      if ("unmade" in original) return original;
      const copy = await copyOf(ctx, w, "private", "owner", later);
      return "unmade" in copy ? copy : { made: { ...copy.made, members: original.made.members } };
    },
    request: onMade("audienceId", "copy"),
    expect: (w) => {
      const members = (w.made.members ?? []) as string[];
      return [
        ok(200, {
          "data.mindCount": is(members.length),
          "data.minds": {
            holds: (v) =>
              Array.isArray(v) && v.length === members.length && !v.some((m) => members.includes(m?.id)),
            says: `are not ${members.length} new Minds (the copy must hold independent copies, not the original's)`,
            breaks: (v) => (Array.isArray(v) ? [...v.slice(1), { id: members[0] }] : v),
          },
        }),
      ];
    },
  },
  {
    id: "duplicateAudience owner on private: no name takes the original's, followed by a copy marker",
    rule: "duplicate/default-name",
    op: "duplicateAudience",
    as: "owner",
    given: (ctx, w, later) => keepAudience(ctx, w, "private", later),
    request: onAud("private", { json: {} }),
    expect: (w) => [ok(201, { "data.name": copyName(w.made.name as string) })],
  },
  ...[
    ["an empty name", ""],
    ["a name of 201 characters", "d".repeat(201)],
    ["a name that is not a string", 5],
  ].map(([what, name]) =>
    ownerOn("private", "duplicateAudience", "duplicate/replay", what as string, {
      request: onAud("private", { json: { name } }),
      expect: [refused(400)],
    }),
  ),
  {
    id: "duplicateAudience owner on private: a name of 200 characters",
    rule: "duplicate/replay",
    op: "duplicateAudience",
    as: "owner",
    request: onAud("private", { json: { name: "d".repeat(200) } }),
    expect: [ok(201, { "data.name": is("d".repeat(200)) })],
  },
  {
    id: "duplicateAudience owner on private: the same idempotency key again replays the copy (200)",
    rule: "duplicate/replay",
    op: "duplicateAudience",
    as: "owner",
    given: async (ctx, w, later) => {
      const key = `case-replay-${Date.now().toString(36)}`;
      const made = await copyWithKey(ctx, w, key, later);
      return "unmade" in made ? made : { made: { ...made.made, key } };
    },
    request: onAud("private", (w) => ({
      json: { name: "Case copy with a key" },
      headers: { "x-service-idempotency-key": w.made.key as string },
    })),
    expect: (w) => [ok(200, { "data.id": is(w.made.copy) })],
  },
  {
    id: "duplicateAudience owner on private: a key past 128 characters is ignored (a new copy, 201)",
    rule: "duplicate/replay",
    op: "duplicateAudience",
    as: "owner",
    given: async (ctx, w, later) => {
      const key = `k${Date.now().toString(36)}`.padEnd(129, "k");
      const made = await copyWithKey(ctx, w, key, later);
      return "unmade" in made ? made : { made: { ...made.made, key } };
    },
    request: onAud("private", (w) => ({
      json: { name: "Case copy with a key" },
      headers: { "x-service-idempotency-key": w.made.key as string },
    })),
    expect: (w) => [ok(201, { "data.id": differs(w.made.copy as string) })],
  },
];

const differs = (id: string) =>
  ({
    holds: (v: unknown) => typeof v === "string" && v !== id,
    says: `is the earlier copy ${id}`,
    breaks: () => id,
  }) as const;

const copyName = (original: string) =>
  ({
    holds: (v: unknown) => typeof v === "string" && v.startsWith(original) && v.length > original.length,
    says: `is not "${original}" followed by a copy marker`,
    breaks: () => original,
  }) as const;

/** A copy of `private` made with idempotency key `key`, deleted after the case. */
async function copyWithKey(
  ctx: Parameters<NonNullable<Case["given"]>>[0],
  w: CaseWorld,
  key: string,
  later: Later,
) {
  const ex = await ctx.call({
    op: "duplicateAudience",
    params: { audienceId: w.aud("private") },
    as: ctx.as("owner"),
    json: { name: "Case copy with a key" },
    headers: { "x-service-idempotency-key": key },
  });
  if (ex.status !== 201) return refusedStep(ex, 201, "the first copy under an idempotency key");
  const copy = ex.body?.data?.id as string;
  later(() => ctx.call({ op: "deleteAudience", params: { audienceId: copy }, as: ctx.as("owner") }));
  return { made: { copy } };
}

export const COPY_CASES: Case[] = [...DELETES, ...FOLLOWS, ...DUPLICATES];
