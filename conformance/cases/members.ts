/**
 * Members and collaborators, case by case. Adding: by every account (the owner alone; 404 for everyone
 * else, nothing added), one ID, several with repeats (`added` counts distinct IDs), both fields (`mindId`
 * wins), a Mind the owner may not use (404, nothing added, the others in the request neither), the body's
 * refusals with their words, 1000 IDs before deduplication and 1001, retired field names, and the plan's
 * member cap (its error's `limit` and `current`, which does not count the refused request). Removing: by
 * every account, a member and a non-member. Collaborators: listed and removed by every account (managers
 * only), the owner not removable, someone who is no collaborator 404.
 */
import type { Role } from "../lib/http/target.ts";
import type { Answer, Case, CaseWorld } from "./case.ts";
import { coded, is, NOBODY, ok, oneOf, refused } from "./case.ts";
import { EVERYONE } from "./cast.ts";
import { keepAudience, keptWrite } from "./given.ts";

const NOT_FOUND = "Audience not found";
const NOT_ACCESSIBLE = "One or more Minds not found or not accessible";

/** The member IDs the owner's view lists now, as an effect's expected field. */
const membersStay = (handle: string) => ({
  what: "the members, read back by the owner",
  op: "getAudience",
  as: "owner" as const,
  request: (w: CaseWorld) => ({ params: { audienceId: w.aud(handle) } }),
  expect: (w: CaseWorld): Answer[] => [
    ok(200, {
      "data.minds": sameIds(w.made.members as string[]),
      "data.mindCount": is((w.made.members as string[]).length),
    }),
  ],
});

const sameIds = (ids: readonly string[]) =>
  ({
    holds: (v: unknown) =>
      Array.isArray(v) &&
      v.length === ids.length &&
      v.every((m: { id?: string }) => ids.includes(m?.id as string)),
    says: `are not the ${ids.length} members from before the request`,
    breaks: (v: unknown) => (Array.isArray(v) ? v.slice(1) : []),
  }) as const;

/** The members after the request: those before, plus `added`. */
const membersNow = (handle: string, added: (w: CaseWorld) => string[]) => ({
  what: "the members, read back by the owner",
  op: "getAudience",
  as: "owner" as const,
  request: (w: CaseWorld) => ({ params: { audienceId: w.aud(handle) } }),
  expect: (w: CaseWorld): Answer[] => {
    const ids = [...new Set([...(w.made.members as string[]), ...added(w)])];
    return [ok(200, { "data.minds": sameIds(ids), "data.mindCount": is(ids.length) })];
  },
});

function add(
  role: Role,
  handle: string,
  what: string,
  rule: Case["rule"],
  body: (w: CaseWorld) => unknown,
  expect: (w: CaseWorld) => Answer[],
  added: (w: CaseWorld) => string[] = () => [],
): Case {
  return {
    ...keptWrite("addMembers", role, handle, what, rule, body),
    expect,
    after: [membersNow(handle, added)],
  };
}

/** The owner adding to its own `private`: the add rules' cases where only the body and the answer differ. */
const ownerAdds = (
  what: string,
  body: (w: CaseWorld) => unknown,
  expect: Answer[],
  added?: (w: CaseWorld) => string[],
): Case => add("owner", "private", what, "members/add-rules", body, () => expect, added);

const ADDS: Case[] = [
  ...EVERYONE.filter((r) => r !== "owner").map((r) =>
    add(
      r,
      "main",
      "only the owner adds (404, nothing added)",
      "members/add-rules",
      (w) => ({ mindId: w.mind("ownLoose") }),
      () => [refused(404)],
    ),
  ),
  ownerAdds(
    "one Mind of its own",
    (w) => ({ mindId: w.mind("ownLoose") }),
    [ok(200, { "data.added": is(1) })],
    (w) => [w.mind("ownLoose")],
  ),
  ownerAdds(
    "a public Mind of another account",
    (w) => ({ mindIds: [w.mind("publicMind")] }),
    [ok(200, { "data.added": is(1) })],
    (w) => [w.mind("publicMind")],
  ),
  ownerAdds(
    "repeated IDs count once (`added` is the distinct IDs)",
    (w) => ({ mindIds: [w.mind("ownLoose"), w.mind("publicMind"), w.mind("ownLoose")] }),
    [ok(200, { "data.added": is(2) })],
    (w) => [w.mind("ownLoose"), w.mind("publicMind")],
  ),
  add(
    "owner",
    "main",
    "Minds already members count in `added` and change nothing",
    "members/add-rules",
    (w) => ({ mindIds: (w.made.members as string[]).slice(0, 3) }),
    () => [ok(200, { "data.added": is(3) })],
  ),
  ownerAdds(
    "mindId wins over mindIds",
    (w) => ({ mindId: w.mind("ownLoose"), mindIds: [w.mind("foreignMind")] }),
    [ok(200, { "data.added": is(1) })],
    (w) => [w.mind("ownLoose")],
  ),
  ownerAdds("a Mind it may not use: 404, nothing added", (w) => ({ mindIds: [w.mind("foreignMind")] }), [
    refused(404, NOT_ACCESSIBLE),
  ]),
  ownerAdds(
    "one Mind it may not use among others: 404, none of them added",
    (w) => ({ mindIds: [w.mind("ownLoose"), w.mind("foreignMind")] }),
    [refused(404, NOT_ACCESSIBLE)],
  ),
  ownerAdds("a Mind ID that names nothing: 404, nothing added", () => ({ mindId: NOBODY }), [
    refused(404, NOT_ACCESSIBLE),
  ]),
  ownerAdds("neither field", () => ({}), [refused(400, "mindId or mindIds is required")]),
  ownerAdds("an empty list", () => ({ mindIds: [] }), [refused(400, "At least one Mind ID is required")]),
  add(
    "owner",
    "private",
    "a mindId that is not a UUID",
    "input/invalid-400",
    () => ({ mindId: "nope" }),
    () => [refused(400)],
  ),
  add(
    "owner",
    "private",
    "a mindIds entry that is not a UUID",
    "input/invalid-400",
    (w) => ({ mindIds: [w.mind("ownLoose"), "nope"] }),
    () => [refused(400)],
  ),
  add(
    "owner",
    "private",
    "1000 IDs, the same one repeated, are one Mind",
    "members/ids-limit",
    (w) => ({ mindIds: Array.from({ length: 1000 }, () => w.mind("ownLoose")) }),
    () => [ok(200, { "data.added": is(1) })],
    (w) => [w.mind("ownLoose")],
  ),
  add(
    "owner",
    "private",
    "1001 IDs before deduplication",
    "members/ids-limit",
    (w) => ({ mindIds: Array.from({ length: 1001 }, () => w.mind("ownLoose")) }),
    () => [refused(400)],
  ),
  add(
    "owner",
    "atCap",
    "one Mind past the plan's member cap: PLAN_LIMIT, its usage before the request",
    "members/plan-cap",
    (w) => ({ mindId: w.mind("ownLoose") }),
    (w) => {
      const plan = w.info.plans.owner ?? "premium";
      const members = (w.made.members as string[]).length;
      // The caller's usage at request time: the members it has, not counting the refused one.
      const fields = {
        "data.currentPlan": is(plan),
        "data.current": is(members),
        "data.limit": is(members),
        "data.limitType": oneOf("groupMembers", "sparks"),
      };
      const answer = coded(403, "PLAN_LIMIT", fields);
      return [plan === "premium" ? { ...answer, message: "Individual plan limit reached" } : answer];
    },
  ),
];

const RETIRED: Case[] = [
  ["sparkId", "mindId"],
  ["sparkIds", "mindIds"],
].map(
  ([retired, replacement]): Case => ({
    ...add(
      "owner",
      "private",
      `the retired field ${retired} is refused, naming ${replacement}`,
      "members/add-rules",
      (w) => ({ [retired as string]: retired === "sparkId" ? w.mind("ownLoose") : [w.mind("ownLoose")] }),
      () => [{ status: 400, fields: { statusMessage: names(replacement as string) } }],
    ),
    simulatorOnly:
      "the description does not name the retired fields; these are the simulator's (README, Simulator decisions)",
  }),
);

const names = (word: string) =>
  ({
    holds: (v: unknown) => typeof v === "string" && new RegExp(`\\b${word}\\b`).test(v),
    says: `does not name the replacement ${word}`,
    breaks: () => "Unknown field",
  }) as const;

function remove(
  role: Role,
  handle: string,
  what: string,
  mind: (w: CaseWorld) => string,
  expect: Answer[],
  gone = false,
): Case {
  return {
    id: `removeMember ${role} on ${handle}: ${what}`,
    rule: "members/remove-rules",
    op: "removeMember",
    as: role,
    changes: handle,
    given: (ctx, w, later) => keepAudience(ctx, w, handle, later),
    request: (w) => ({ params: { audienceId: w.aud(handle), mindId: mind(w) } }),
    expect,
    after: [
      gone
        ? {
            ...membersStay(handle),
            expect: (w: CaseWorld): Answer[] => {
              const ids = (w.made.members as string[]).filter((id) => id !== mind(w));
              return [ok(200, { "data.minds": sameIds(ids), "data.mindCount": is(ids.length) })];
            },
          }
        : membersStay(handle),
    ],
  };
}

const REMOVES: Case[] = [
  ...EVERYONE.filter((r) => r !== "owner").map((r) =>
    remove(r, "main", "only the owner removes (404, still a member)", (w) => w.mind("mainMember"), [
      refused(404, NOT_FOUND),
    ]),
  ),
  {
    ...remove("owner", "main", "a Mind that is no member: 204 all the same", (w) => w.mind("ownLoose"), [
      ok(204, { "": is(undefined) }),
    ]),
    also: ["ids/unknown-404"],
  },
  {
    ...remove("owner", "main", "a Mind ID that names nothing: 204", () => NOBODY, [ok(204)]),
    also: ["ids/unknown-404"],
  },
  {
    ...remove(
      "owner",
      "private",
      "a member: removed, the Mind itself kept",
      (w) => w.made.first as string,
      [ok(204)],
      true,
    ),
    given: async (ctx, w, later) => {
      const m = await keepAudience(ctx, w, "private", later);
      if ("unmade" in m) return m;
      const first = (m.made.members as string[])[0];
      // The member is put back after the case (the owner's own Mind: allowed).
      later(() =>
        ctx.call({
          op: "addMembers",
          params: { audienceId: w.aud("private") },
          as: ctx.as("owner"),
          json: { mindId: first },
        }),
      );
      return first ? { made: { ...m.made, first } } : { unmade: "private has no member to remove" };
    },
  },
  {
    id: "removeMember owner on main: a malformed Mind ID",
    rule: "ids/messages",
    also: ["ids/malformed-400"],
    op: "removeMember",
    as: "owner",
    request: (w) => ({ params: { audienceId: w.aud("main"), mindId: "not-a-uuid" } }),
    expect: [refused(400, "Invalid mind ID format")],
  },
];

export const MEMBER_CASES: Case[] = [...ADDS, ...RETIRED, ...REMOVES];
