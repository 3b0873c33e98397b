/**
 * Audiences, case by case: every account reading every Audience of the cast (its role, the sharing
 * fields only for collaborators, 404 where it may not see); PUT by every account on every Audience (with
 * its name alone it changes nothing), team sharing changed by owners in and out of a team and by
 * collaborators who are not the owner, names missing, blank, trimmed and of the wrong type, flags sent as
 * strings; DELETE by everyone but the owner (404, still there) and by the owner on its own copy; follow and
 * unfollow on public and private Audiences; duplicates by editors and by viewers who may not edit.
 */
import type { Role } from "../lib/http/target.ts";
import type { Answer, Case, CaseWorld } from "./case.ts";
import {
  ABSENT,
  coded,
  is,
  malformedAudienceId,
  ok,
  onAud,
  PRESENT,
  refused,
  unknownAudienceId,
} from "./case.ts";
import { canView, EVERYONE, isCollaborator, memberRole, ownerOf, relation } from "./cast.ts";
import { keepAudience, keptWrite, refusedStep } from "./given.ts";

const NOT_FOUND = "Audience not found";
const SHARING = ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"] as const;
/** The handles every account reads; `large` (5,200 members) is read by two. */
const READ = ["main", "private", "public", "empty", "atCap", "soloAudience"];

/** What `role` is answered reading `handle`: its role and the sharing fields a collaborator alone sees. */
function readAnswer(w: CaseWorld, role: Role, handle: string): Answer[] {
  const r = relation(role, handle);
  if (!canView(r)) return [refused(404, NOT_FOUND)];
  const sharing = Object.fromEntries(SHARING.map((f) => [`data.${f}`, isCollaborator(r) ? PRESENT : ABSENT]));
  return [ok(200, { "data.id": is(w.aud(handle)), "data.currentMemberRole": is(memberRole(r)), ...sharing })];
}

function read(role: Role, handle: string): Case {
  return {
    id: `getAudience ${role} on ${handle}: ${canView(relation(role, handle)) ? memberRole(relation(role, handle)) : "hidden"}`,
    rule: canView(relation(role, handle)) ? "audience/member-role" : "audience/read-roles",
    also: ["audience/sharing-fields", "audience/read-roles"],
    op: "getAudience",
    as: role,
    request: onAud(handle, { query: { members: "preview" } }),
    expect: (w) => readAnswer(w, role, handle),
  };
}

const READS: Case[] = [
  ...READ.flatMap((h) => EVERYONE.map((r) => read(r, h))),
  read("publisher", "large"),
  read("outsider", "large"),
  {
    id: "getAudience owner on main: the complete detail without members=preview",
    rule: "audience/members-preview",
    op: "getAudience",
    as: "owner",
    request: onAud("main"),
    expect: (w) => readAnswer(w, "owner", "main"),
  },
  {
    id: "getAudience owner on main: members=preview lists the members without reviewed-field metadata",
    rule: "audience/members-preview",
    op: "getAudience",
    as: "owner",
    request: onAud("main", { query: { members: "preview" } }),
    expect: [
      ok(200, {
        "data.minds": {
          holds: (v) =>
            Array.isArray(v) &&
            v.length > 0 &&
            v.every((m) => m && typeof m === "object" && !("reviewedFields" in m)),
          says: "lists no member, or a member with reviewed-field metadata",
          breaks: (v) => (Array.isArray(v) ? v.map((m) => ({ ...m, reviewedFields: ["bio"] })) : v),
        },
      }),
    ],
  },
  {
    id: "getAudience owner on main: members=full is not an allowed value",
    rule: "input/invalid-400",
    op: "getAudience",
    as: "owner",
    request: onAud("main", { query: { members: "full" } }),
    expect: [refused(400)],
  },
  unknownAudienceId("getAudience", "owner", "ids/unknown-404", [refused(404, NOT_FOUND)]),
  malformedAudienceId("getAudience", "ids/messages", "a malformed ID"),
  {
    id: "getAudience studyViewer on main: uploaded-file URLs redacted",
    rule: "audience/file-redaction",
    op: "getAudience",
    as: "studyViewer",
    // The URLs the owner sees in `sources.files`: a Study-cascade viewer must not see one of them anywhere.
    given: async (ctx, w) => {
      const ex = await ctx.call({
        op: "getAudience",
        params: { audienceId: w.aud("main") },
        as: ctx.as("owner"),
      });
      if (ex.status !== 200) return refusedStep(ex, 200, "owner reading main");
      const urls = fileUrls(ex.body?.data);
      return urls.length ? { made: { urls } } : { unmade: "main holds no uploaded-file URL to look for" };
    },
    mutates: false,
    request: onAud("main"),
    expect: (w) => [
      ok(200, {
        "data.sources": hidesUrls(w.made.urls as string[]),
        "data.grounding": hidesUrls(w.made.urls as string[]),
      }),
    ],
  },
];

/** The uploaded-file URLs of a detail, in `sources` and `grounding.sources`. */
function fileUrls(
  d: { sources?: { files?: { url?: unknown }[] }; grounding?: unknown } | undefined,
): string[] {
  const urls = (d?.sources?.files ?? [])
    .map((f) => f.url)
    .filter((u): u is string => typeof u === "string" && u !== "");
  return [...new Set(urls)];
}

const hidesUrls = (urls: readonly string[]) =>
  ({
    holds: (v: unknown) => !urls.some((u) => JSON.stringify(v ?? null).includes(u)),
    says: "shows an uploaded-file URL to a public or Study-cascade viewer",
    breaks: (v: unknown) => ({ ...(v as object), files: urls.map((url) => ({ url })) }),
  }) as const;

// ---- PUT ----

/** PUT with the Audience's own name and nothing else: changes nothing, allowed to collaborators only. */
function putName(role: Role, handle: string): Case {
  const r = relation(role, handle);
  return {
    id: `updateAudience ${role} on ${handle}: ${isCollaborator(r) ? "a collaborator may" : "404, no edit access"}`,
    rule: isCollaborator(r) ? "audience/update-rules" : "access/hidden-as-404",
    op: "updateAudience",
    as: role,
    changes: handle,
    given: (ctx, w, later) => keepAudience(ctx, w, handle, later),
    request: onAud(handle, (w) => ({ json: { name: w.made.name } })),
    expect: (w) =>
      isCollaborator(r)
        ? [
            ok(200, {
              "data.id": is(w.aud(handle)),
              "data.name": is(w.made.name),
              "data.currentMemberRole": is(memberRole(r)),
              "data.isSharedWithTeam": is(w.made.isSharedWithTeam),
              "data.isPublic": is(w.made.isPublic),
            }),
          ]
        : [refused(404)],
  };
}

/** A PUT of `json` on `handle` by `role` (after its current name), with what it must answer. */
function put(
  role: Role,
  handle: string,
  what: string,
  rule: Case["rule"],
  json: (w: CaseWorld) => Record<string, unknown>,
  expect: (w: CaseWorld) => Answer[],
): Case {
  return {
    ...keptWrite("updateAudience", role, handle, what, rule, json),
    expect,
    after: [
      {
        what: "the owner reads it back",
        op: "getAudience",
        as: ownerOf(handle),
        request: onAud(handle, { query: { members: "preview" } }),
        expect: (w) => [
          ok(200, {
            "data.isSharedWithTeam": is(w.made.isSharedWithTeam),
            "data.isPublic": is(w.made.isPublic),
          }),
        ],
      },
    ],
  };
}

/** A PUT by the owner on its own `private`, kept as it was. */
const ownerPut = (
  what: string,
  rule: Case["rule"],
  json: (w: CaseWorld) => Record<string, unknown>,
  expect: (w: CaseWorld) => Answer[],
): Case => put("owner", "private", what, rule, json, expect);

const NAME_REQUIRED = ["name is required", "Name is required"];

const PUTS: Case[] = [
  ...["main", "private", "public", "soloAudience"].flatMap((h) => EVERYONE.map((r) => putName(r, h))),
  ...(["admin", "member", "teammate"] as const).map((role) =>
    put(
      role,
      "main",
      "a collaborator who is not the owner changes team sharing",
      "audience/team-share-owner",
      (w) => ({ name: w.made.name, isSharedWithTeam: !w.made.isSharedWithTeam }),
      () => [coded(403, "TEAM_SHARE_OWNER_ONLY")],
    ),
  ),
  // Owners in no team, one of them on a team plan: sharing with a team is TEAM_REQUIRED.
  ...(
    [
      ["solo", "soloAudience", "an owner in no team shares with a team"],
      ["publisher", "public", "an owner in no team (on a team plan) shares with a team"],
    ] as const
  ).map(([role, handle, what]) =>
    put(
      role,
      handle,
      what,
      "audience/team-share-owner",
      (w) => ({ name: w.made.name, isSharedWithTeam: true }),
      () => [coded(400, "TEAM_REQUIRED")],
    ),
  ),
  {
    ...put(
      "owner",
      "private",
      "an owner in a team shares with it, then stops",
      "audience/team-share-owner",
      (w) => ({ name: w.made.name, isSharedWithTeam: true }),
      () => [ok(200, { "data.isSharedWithTeam": is(true) })],
    ),
    after: [
      {
        what: "the teammate now opens it as a team member",
        op: "getAudience",
        as: "teammate",
        request: onAud("private", { query: { members: "preview" } }),
        expect: [ok(200, { "data.currentMemberRole": is("team_member") })],
      },
      {
        what: "the owner stops sharing",
        op: "updateAudience",
        as: "owner",
        request: onAud("private", (w) => ({
          json: { name: w.made.name, isSharedWithTeam: false },
        })),
        expect: [ok(200, { "data.isSharedWithTeam": is(false) })],
      },
      {
        what: "the teammate no longer opens it",
        op: "getAudience",
        as: "teammate",
        request: onAud("private", { query: { members: "preview" } }),
        expect: [refused(404, NOT_FOUND)],
      },
    ],
  },
  ownerPut(
    "flags sent as strings change nothing",
    "audience/update-rules",
    (w) => ({ name: w.made.name, isPublic: "true", isSharedWithTeam: "true" }),
    (w) => [
      ok(200, { "data.isPublic": is(w.made.isPublic), "data.isSharedWithTeam": is(w.made.isSharedWithTeam) }),
    ],
  ),
  ownerPut(
    "isLinkSharingEnabled cannot be changed here and is echoed",
    "audience/update-rules",
    (w) => ({ name: w.made.name, isLinkSharingEnabled: true }),
    () => [ok(200, { "data.isLinkSharingEnabled": is(false) })],
  ),
  // Names the owner may not give main: each a 400, with the words the description states where it states them.
  ...(
    [
      ["no name", { isPublic: false }, NAME_REQUIRED],
      ["a blank name", { name: "   " }, NAME_REQUIRED],
      ["an empty name", { name: "" }, NAME_REQUIRED],
      ["a name that is not a string", { name: 7 }, undefined],
    ] as const
  ).map(([what, json, message]) =>
    put(
      "owner",
      "main",
      what,
      "audience/update-rules",
      () => json,
      () => [refused(400, message)],
    ),
  ),
  ownerPut(
    "a name is trimmed",
    "audience/update-rules",
    (w) => ({ name: `  ${w.made.name}  ` }),
    (w) => [ok(200, { "data.name": is(w.made.name) })],
  ),
  unknownAudienceId(
    "updateAudience",
    "owner",
    "ids/unknown-404",
    [refused(404)],
    "an ID that names nothing",
    { json: { name: "Nobody's" } },
  ),
];

export const AUDIENCE_CASES: Case[] = [...READS, ...PUTS];
