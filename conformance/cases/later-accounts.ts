import { type Case, type Field, is, ok, onAud, onMade, refused } from "./case.ts";
import { copyOf, keepAudience, refusedStep } from "./given.ts";

// ---- checkout, cascades, counts, removals ----

const holdsMind = (mind: string): Field => ({
  holds: (v) => Array.isArray(v) && v.some((m) => m?.id === mind),
  says: `lacks the Mind ${mind}, which it holds`,
  breaks: (v) => (Array.isArray(v) ? v.filter((m) => m?.id !== mind) : []),
});

const rowsInclude = (mind: string, n: number): Field => ({
  holds: (v) => Array.isArray(v) && v.length === n && v.some((r) => r?.mindId === mind),
  says: `are not ${n} rows with the added Mind ${mind}`,
  breaks: (v) => (Array.isArray(v) ? v.filter((r) => r?.mindId !== mind) : []),
});

const OTHERS: Case[] = [
  {
    id: "createCheckoutSession owner: the same Idempotency-Key and body return the same session",
    rule: "checkout/idempotency",
    op: "createCheckoutSession",
    as: "owner",
    given: async (ctx, w, later) => {
      const key = `caseIdem${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const p = w.price("credits");
      const json = { line_items: [{ id: p.id }], currency: p.currency, capabilities: {} };
      const ex = await ctx.call({
        op: "createCheckoutSession",
        as: ctx.as("owner"),
        json,
        headers: { "idempotency-key": key },
      });
      if (ex.status !== 201) return refusedStep(ex, 201, "the first session under the key");
      later(() =>
        ctx.call({ op: "cancelCheckoutSession", params: { id: ex.body?.id }, as: ctx.as("owner") }),
      );
      return { made: { key, id: ex.body?.id } };
    },
    request: (w) => ({
      json: {
        line_items: [{ id: w.price("credits").id }],
        currency: w.price("credits").currency,
        capabilities: {},
      },
      headers: { "idempotency-key": w.made.key as string },
    }),
    expect: (w) => [ok(200, { id: is(w.made.id) }), ok(201, { id: is(w.made.id) })],
  },
  {
    id: "deleteAudience owner on its copy: the Minds only the copy held go with it, the others stay",
    rule: "audience/delete-cascade",
    op: "deleteAudience",
    as: "owner",
    // Two copies of private (the owner's own Minds): one Mind of the first is added to the second too.
    given: async (ctx, w, later) => {
      const a = await copyOf(ctx, w, "private", "owner", later);
      if ("unmade" in a) return a;
      const b = await ctx.call({
        op: "duplicateAudience",
        params: { audienceId: w.aud("private") },
        as: ctx.as("owner"),
        json: { name: "Case copy kept" },
      });
      if (b.status !== 201) return refusedStep(b, 201, "a second copy of private");
      const keep = b.body?.data?.id as string;
      later(() => ctx.call({ op: "deleteAudience", params: { audienceId: keep }, as: ctx.as("owner") }));
      const detail = await ctx.call({
        op: "getAudience",
        params: { audienceId: a.made.copy as string },
        as: ctx.as("owner"),
      });
      const [shared, alone] = ((detail.body?.data?.minds ?? []) as { id: string }[]).map((m) => m.id);
      if (!shared || !alone) return { unmade: "the copy lists fewer than two members" };
      const add = await ctx.call({
        op: "addMembers",
        params: { audienceId: keep },
        as: ctx.as("owner"),
        json: { mindId: shared },
      });
      if (add.status !== 200)
        return refusedStep(add, 200, "the owner adding the first copy's Mind to the second");
      return { made: { copy: a.made.copy, keep, shared, alone } };
    },
    request: onMade("audienceId", "copy"),
    expect: [ok(204)],
    after: [
      {
        what: "the Mind only the deleted copy held, added again",
        op: "addMembers",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.made.keep as string }, json: { mindId: w.made.alone } }),
        expect: [refused(404, "One or more Minds not found or not accessible")],
      },
      {
        what: "the Mind another Audience holds, read there",
        op: "getAudience",
        as: "owner",
        request: onMade("audienceId", "keep"),
        expect: (w) => [ok(200, { "data.minds": holdsMind(w.made.shared as string) })],
      },
    ],
  },
  {
    id: "addMembers owner on private: every count and list follows the added Mind",
    rule: "members/counts-follow",
    op: "addMembers",
    as: "owner",
    changes: "private",
    given: (ctx, w, later) => keepAudience(ctx, w, "private", later),
    request: onAud("private", (w) => ({ json: { mindId: w.mind("ownLoose") } })),
    expect: [ok(200, { "data.added": is(1) })],
    after: [
      {
        what: "its progress",
        op: "getAudienceProgress",
        as: "owner",
        request: onAud("private"),
        expect: (w) => {
          const n = (w.made.members as string[]).length + 1;
          return [
            ok(200, { "data.readiness.total": is(n), "data.members": rowsInclude(w.mind("ownLoose"), n) }),
          ];
        },
      },
      {
        what: "its filter attributes",
        op: "getFilterAttributes",
        as: "owner",
        request: onAud("private"),
        expect: (w) => [ok(200, { "data.totalMinds": is((w.made.members as string[]).length + 1) })],
      },
      {
        what: "its detail",
        op: "getAudience",
        as: "owner",
        request: onAud("private", { query: { members: "preview" } }),
        expect: (w) => [ok(200, { "data.mindCount": is((w.made.members as string[]).length + 1) })],
      },
    ],
  },
  {
    id: "removeCollaborator owner on main: the member removed, who loses the Audience at once",
    rule: "collaborators/removal-revokes",
    op: "removeCollaborator",
    as: "owner",
    simulatorOnly:
      "the API cannot invite anyone back: only a simulator, rebuilt afterwards, may lose its member",
    resets: true,
    given: async (ctx, _w, later) => {
      later(() => ctx.target.rebuild());
      return { made: {} };
    },
    request: (w) => ({ params: { audienceId: w.aud("main"), userId: w.user("member") } }),
    expect: [ok(200, { "data.success": is(true) })],
    after: [
      {
        what: "the removed member reads main",
        op: "getAudience",
        as: "member",
        request: onAud("main", { query: { members: "preview" } }),
        expect: [refused(404, "Audience not found")],
      },
      {
        what: "removing them again",
        op: "removeCollaborator",
        as: "owner",
        request: (w) => ({ params: { audienceId: w.aud("main"), userId: w.user("member") } }),
        expect: [refused(404)],
      },
    ],
  },
];

export const LATER_ACCOUNT_CASES: Case[] = OTHERS;
