/**
 * Formations, case by case: listing by every account (404 `Formation not found` where it may not see),
 * pages at 0, inside, at and past the end, limits 1 and 100 and either side; creating by every account
 * (shared for collaborators, private for other viewers, 404 for the rest), on an Audience with no members
 * and one over 1000, with every hypothesis rule at and past its bounds and with each reserved id; reading
 * the cast's shared, failed and private Formations as everyone, and through another Audience's path;
 * recomputing and deleting as the mutability rules say, for Formations made by a collaborator and by a
 * viewer; previews by everyone, with `priorHypothesis` null, absent and malformed, `userInput` at and past
 * its bound, and every `Accept` the description names.
 */
import type { Role } from "../lib/http/target.ts";
import { hypothesis, ownerOnMain } from "../lib/running/helpers.ts";
import type { Answer, Case, CaseWorld } from "./case.ts";
import { coded, is, NOBODY, ok, onAud, oneOf, ownerOn, PRESENT, refused } from "./case.ts";
import { canView, EVERYONE, isCollaborator, relation } from "./cast.ts";
import { formationBy, refusedStep } from "./given.ts";
import { viewerRead } from "./viewers.ts";

const NOT_FOUND = "Formation not found";
const INVALID = "Invalid Formation input";
const STATUS = oneOf("building", "ready", "failed");

const list = (role: Role, handle: string): Case =>
  viewerRead({
    op: "listFormations",
    role,
    handle,
    rule: "formations/visibility",
    seen: "listed",
    answer: [ok(200, { "pagination.offset": is(0), "pagination.limit": is(100) })],
    hidden: refused(404, NOT_FOUND),
  });

/** A page of `main` as the owner, `query` as given. */
function page(
  what: string,
  query: Record<string, string | number>,
  expect: Answer[] | ((w: CaseWorld) => Answer[]),
): Case {
  return ownerOn("main", "listFormations", "formations/pagination", what, {
    request: onAud("main", { query }),
    expect,
  });
}

const pageAgrees = {
  holds: (v: unknown, body: unknown) => {
    const p = v as {
      total: number;
      limit: number;
      offset: number;
      hasMore: boolean;
      nextOffset: number | null;
    };
    const rows = (body as { data?: unknown[] })?.data?.length ?? -1;
    const more = p.offset + rows < p.total;
    return (
      rows <= p.limit &&
      rows === Math.max(0, Math.min(p.limit, p.total - p.offset)) &&
      p.hasMore === more &&
      p.nextOffset === (more ? p.offset + rows : null)
    );
  },
  says: "does not agree with its rows (rows = min(limit, total - offset); hasMore and nextOffset follow)",
  breaks: (v: unknown) => ({ ...(v as object), hasMore: !(v as { hasMore: boolean }).hasMore }),
} as const;

const PAGES: Case[] = [
  page("limit 1", { limit: 1 }, [ok(200, { pagination: pageAgrees, "pagination.limit": is(1) })]),
  page("limit 100", { limit: 100 }, [ok(200, { pagination: pageAgrees, "pagination.limit": is(100) })]),
  page("limit 0", { limit: 0 }, [refused(400)]),
  page("limit 101", { limit: 101 }, [refused(400)]),
  page("offset -1", { offset: -1 }, [refused(400)]),
  page("a limit that is no integer", { limit: "ten" }, [refused(400)]),
  page("offset 1, inside", { offset: 1, limit: 1 }, [
    ok(200, { pagination: pageAgrees, "pagination.offset": is(1) }),
  ]),
  page("an offset past the end: an empty page, nothing more", { offset: 10_000 }, [
    ok(200, {
      data: is([]),
      "pagination.hasMore": is(false),
      "pagination.nextOffset": is(null),
      "pagination.offset": is(10_000),
    }),
  ]),
  {
    id: "listFormations owner on main: an offset at the end is an empty last page",
    rule: "formations/pagination",
    op: "listFormations",
    as: "owner",
    mutates: false,
    given: async (ctx) => {
      const ex = await ownerOnMain(ctx, "listFormations");
      const total = ex.body?.pagination?.total;
      return typeof total === "number"
        ? { made: { total } }
        : { unmade: `the first page answered ${ex.status} without a total` };
    },
    request: onAud("main", (w) => ({ query: { offset: w.made.total as number } })),
    expect: (w) => [
      ok(200, {
        data: is([]),
        "pagination.total": is(w.made.total),
        "pagination.hasMore": is(false),
        "pagination.nextOffset": is(null),
      }),
    ],
  },
  {
    id: "listFormations owner on main: listed again, the same rows (a read changes nothing)",
    rule: "reads/safe",
    op: "listFormations",
    as: "owner",
    mutates: false,
    // The first read asks for the same rows in other words (limit stated), so that it is a request of its own.
    given: async (ctx) => {
      const ex = await ownerOnMain(ctx, "listFormations", { query: { offset: 1, limit: 100 } });
      if (ex.status !== 200) return refusedStep(ex, 200, "the first read of the page");
      return {
        made: {
          ids: (ex.body?.data ?? []).map((f: { id: string }) => f.id),
          total: ex.body?.pagination?.total,
        },
      };
    },
    request: onAud("main", { query: { offset: 1 } }),
    expect: (w) => [ok(200, { "pagination.total": is(w.made.total), data: idsAre(w.made.ids) })],
  },
];

const idsAre = (given: unknown) => {
  const ids = Array.isArray(given) ? (given as string[]) : [];
  return {
    holds: (v: unknown) => Array.isArray(v) && v.length === ids.length && v.every((f, i) => f?.id === ids[i]),
    says: `are not the rows ${ids.join(", ")} listed a moment before`,
    breaks: (v: unknown) => (Array.isArray(v) && v.length ? v.slice(1) : [{ id: NOBODY }]),
  } as const;
};

// ---- create ----

function create(role: Role, handle: string): Case {
  const r = relation(role, handle);
  return {
    id: `createFormation ${role} on ${handle}: ${canView(r) ? (isCollaborator(r) ? "shared" : "private") : "404, hidden"}`,
    rule: canView(r) ? "formations/visibility" : "access/hidden-as-404",
    also: ["formations/lifecycle"],
    op: "createFormation",
    as: role,
    request: onAud(handle, {
      json: { hypothesis: hypothesis(2, "case"), name: `By ${role}` },
    }),
    expect: canView(r)
      ? [ok(200, { "data.id": PRESENT, "data.name": is(`By ${role}`), "data.status": STATUS })]
      : [refused(404)],
    // Who else sees it: a collaborator's is shared (a Study viewer of main reads it), a viewer's private
    // (the owner does not).
    after:
      canView(r) && handle === "main"
        ? [
            {
              what: isCollaborator(r)
                ? "a Study viewer reads the shared Formation"
                : "the owner reads the private one",
              op: "getFormation",
              as: isCollaborator(r) ? (role === "studyViewer" ? "owner" : "studyViewer") : "owner",
              request: (w, answer) => ({
                params: { audienceId: w.aud("main"), formationId: String(answer.body?.data?.id ?? NOBODY) },
              }),
              expect: isCollaborator(r) ? [ok(200)] : [refused(404, NOT_FOUND)],
            },
          ]
        : [],
  };
}

/** Creating on `main` as the owner with `body`: refused with `answer`. */
function badInput(what: string, body: unknown, answer: Answer = refused(400, INVALID)): Case {
  return {
    id: `createFormation owner on main: ${what}`,
    rule: "formations/hypothesis-rules",
    op: "createFormation",
    as: "owner",
    request: onAud("main", { json: body }),
    expect: [answer],
  };
}

export const withSubgroups = (subgroups: object[]) => ({
  hypothesis: { intent: "Split the audience", subgroups },
});
export const sg = (id: string, label = `Label ${id}`, definition = `Definition of ${id}`) => ({
  id,
  label,
  definition,
});

const CREATES: Case[] = [
  ...EVERYONE.map((r) => create(r, "main")),
  create("owner", "private"),
  create("outsider", "public"),
  {
    id: "createFormation owner on empty: no members to categorize",
    rule: "formations/create-refusals",
    op: "createFormation",
    as: "owner",
    request: onAud("empty", { json: { hypothesis: hypothesis(2) } }),
    expect: [refused(400, "Audience has no members to categorize")],
  },
  ...(["publisher", "outsider"] as const).map(
    (role): Case => ({
      id: `createFormation ${role} on large: over 1000 members (FORMATION_CAP)`,
      rule: "formations/create-refusals",
      op: "createFormation",
      as: role,
      request: onAud("large", { json: { hypothesis: hypothesis(2) } }),
      expect: [coded(400, "FORMATION_CAP")],
    }),
  ),
  {
    id: "createFormation owner on main: 2 subgroups, no name (named after the intent)",
    rule: "formations/hypothesis-rules",
    op: "createFormation",
    as: "owner",
    request: onAud("main", { json: { hypothesis: hypothesis(2, "two") } }),
    expect: [
      ok(200, {
        "data.name": {
          holds: (v) => typeof v === "string" && v.trim() !== "",
          says: "is not a name",
          breaks: () => "",
        },
        "data.status": STATUS,
      }),
    ],
  },
  {
    id: "createFormation owner on main: 15 subgroups",
    rule: "formations/hypothesis-rules",
    op: "createFormation",
    as: "owner",
    request: onAud("main", {
      json: { hypothesis: hypothesis(15, "fifteen") },
    }),
    expect: [ok(200, { "data.status": STATUS })],
  },
  badInput("1 subgroup", { hypothesis: hypothesis(1) }),
  badInput("16 subgroups", { hypothesis: hypothesis(16) }),
  badInput("no subgroups", withSubgroups([])),
  ...["unanswered", "__unanswered", "__other"].map((id) =>
    badInput(`the reserved id ${id}`, withSubgroups([sg("a"), sg(id)])),
  ),
  badInput("two subgroups with one id", withSubgroups([sg("a", "A"), sg("a", "B")])),
  badInput("two subgroups with one label", withSubgroups([sg("a", "Same"), sg("b", "Same")])),
  badInput("a blank id", withSubgroups([sg("a"), sg("   ")])),
  badInput("a blank label", withSubgroups([sg("a"), sg("b", "  ")])),
  badInput("a blank definition", withSubgroups([sg("a"), sg("b", "B", " ")])),
  badInput("a blank intent", { hypothesis: { ...hypothesis(2), intent: "   " } }),
  badInput("no hypothesis", { name: "No hypothesis" }),
  badInput("a name that is not a string", { hypothesis: hypothesis(2), name: 12 }),
  {
    id: "createFormation owner on main: a body that is not JSON",
    rule: "input/invalid-400",
    op: "createFormation",
    as: "owner",
    request: onAud("main", {
      body: "{not json",
      headers: { "content-type": "application/json" },
    }),
    expect: [refused(400, "Invalid JSON body")],
  },
];

// ---- read, recompute, delete ----

function get(role: Role, handle: string, status: string, visibleTo: (r: Role) => boolean): Case {
  const sees = visibleTo(role);
  return {
    id: `getFormation ${role}: ${handle} (${status}) ${sees ? "read" : "404"}`,
    rule: "formations/visibility",
    op: "getFormation",
    as: role,
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: w.formation(handle) } }),
    expect: (w) =>
      sees
        ? [
            ok(200, {
              "data.id": is(w.formation(handle)),
              "data.status": is(status),
              ...(status === "ready" ? { "data.progress": is(null) } : {}),
            }),
          ]
        : [refused(404, NOT_FOUND)],
  };
}

const viewsMain = (r: Role) => canView(relation(r, "main"));

/** A case on a Formation `creator` made on `main`: `op` by `role`, answered as the mutability rules say. */
function mutate(op: "deleteFormation" | "recomputeFormation", creator: Role, role: Role): Case {
  const shared = isCollaborator(relation(creator, "main"));
  const r = relation(role, "main");
  const may = canView(r) && (isCollaborator(r) ? shared || creator === role : !shared && creator === role);
  const success: Answer =
    op === "deleteFormation" ? ok(204, { "": is(undefined) }) : ok(200, { "data.status": STATUS });
  return {
    id: `${op} ${role} on ${shared ? "a shared" : "a private"} Formation by ${creator}: ${may ? "allowed" : "404"}`,
    rule: "formations/mutability",
    also: ["formations/lifecycle"],
    op,
    as: role,
    given: (ctx, w, later) => formationBy(ctx, w, "main", creator, later),
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: w.made.formationId as string } }),
    expect: may ? [success] : [refused(404)],
    after: [
      {
        what: `its creator reads it ${op === "deleteFormation" && may ? "(gone)" : "(still there)"}`,
        op: "getFormation",
        as: creator,
        request: (w) => ({
          params: { audienceId: w.aud("main"), formationId: w.made.formationId as string },
        }),
        expect: op === "deleteFormation" && may ? [refused(404, NOT_FOUND)] : [ok(200)],
      },
    ],
  };
}

const READS: Case[] = [
  ...EVERYONE.map((r) => get(r, "mainReady", "ready", viewsMain)),
  ...EVERYONE.map((r) => get(r, "mainFailed", "failed", viewsMain)),
  ...EVERYONE.map((r) => get(r, "teammatePrivate", "ready", (x) => x === "teammate")),
  ...(["private", "public"] as const).map(
    (handle): Case => ({
      id: `getFormation owner: mainReady through ${handle}'s path is 404`,
      rule: "formations/visibility",
      op: "getFormation",
      as: "owner",
      request: (w) => ({ params: { audienceId: w.aud(handle), formationId: w.formation("mainReady") } }),
      expect: [refused(404, NOT_FOUND)],
    }),
  ),
  {
    id: "getFormation owner: an ID that names nothing",
    rule: "ids/unknown-404",
    op: "getFormation",
    as: "owner",
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: NOBODY } }),
    expect: [refused(404, NOT_FOUND)],
  },
  {
    id: "getFormation owner: a malformed Formation ID",
    rule: "ids/messages",
    op: "getFormation",
    as: "owner",
    request: (w) => ({ params: { audienceId: w.aud("main"), formationId: "not-a-uuid" } }),
    expect: [refused(400, "Invalid formation ID format")],
  },
  ...(["owner", "studyViewer"] as const).flatMap((creator) =>
    (["owner", "admin", "teammate", "studyViewer", "outsider"] as const).flatMap((role) => [
      mutate("recomputeFormation", creator, role),
      mutate("deleteFormation", creator, role),
    ]),
  ),
  {
    id: "recomputeFormation owner: mainReady through private's path is 404",
    rule: "formations/mutability",
    op: "recomputeFormation",
    as: "owner",
    request: (w) => ({ params: { audienceId: w.aud("private"), formationId: w.formation("mainReady") } }),
    expect: [refused(404)],
  },
];

export const FORMATION_CASES: Case[] = [
  ...EVERYONE.flatMap((r) => ["main", "private", "public"].map((h) => list(r, h))),
  ...PAGES,
  ...CREATES,
  ...READS,
];
