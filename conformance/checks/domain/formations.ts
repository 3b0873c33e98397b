/**
 * Formations: pagination arithmetic, shared and private visibility, and the preview's NDJSON stream
 * (order, framing, negotiation, the soft warning and the hard cap).
 */
import fc from "fast-check";
import { streamProblems } from "../../lib/description/answers.ts";
import { limits, validate } from "../../lib/description/contract.ts";
import type { Exchange } from "../../lib/http/http.ts";
import { type CheckContext, check } from "../../lib/running/context.ts";
import { hypothesis, memberIds } from "../../lib/running/helpers.ts";

export const formationPages = check("domain/formation-pagination", ["formations/pagination"], {
  title:
    "Formation pages: total, hasMore and nextOffset agree with the rows; walking the pages lists each Formation once",
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const list = (limit: number, offset: number) =>
      ctx.call({
        op: "listFormations",
        params: { audienceId },
        as: ctx.as("owner"),
        query: { limit, offset },
      });
    const first = await list(100, 0);
    ctx.requireStatus(first, 200, "formations/pagination", "the first page");
    const total = first.body?.pagination?.total;
    if (typeof total !== "number") return ctx.inconclusive("the first page has no pagination.total");
    const rows = (first.body.data ?? []) as { createdAt?: string; id: string }[];
    if (rows.every((r) => typeof r.createdAt === "string"))
      ctx.expect(
        rows.every(
          (r, i) =>
            i === 0 || ((rows[i - 1] as { createdAt: string }).createdAt ?? "") >= (r.createdAt ?? ""),
        ),
        "formations/pagination",
        "Formations are not newest first",
        first,
      );
    await ctx.property(
      "page arithmetic",
      fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: total + 3 })),
      async ([limit, offset]) => {
        const ex = await list(limit, offset);
        // Every limit from 1 to 100 and every offset >= 0 is valid: past the end too (an empty page).
        ctx.requireStatus(ex, 200, "formations/pagination", `limit ${limit}, offset ${offset}`);
        const p = ex.body?.pagination;
        const n = (ex.body?.data ?? []).length;
        if (!p) return ctx.inconclusive(`limit ${limit}, offset ${offset}: no pagination to judge`);
        const expectedRows = Math.max(0, Math.min(limit, p.total - offset));
        const hasMore = offset + n < p.total;
        const problems = [
          p.limit !== limit && `limit ${p.limit}`,
          p.offset !== offset && `offset ${p.offset}`,
          n !== expectedRows && `${n} rows (expected ${expectedRows})`,
          p.hasMore !== hasMore && `hasMore ${p.hasMore}`,
          p.nextOffset !== (hasMore ? offset + n : null) && `nextOffset ${p.nextOffset}`,
        ].filter(Boolean);
        ctx.expect(
          problems.length === 0,
          "formations/pagination",
          `limit ${limit} offset ${offset} of ${p.total}: ${problems.join(", ")}`,
          ex,
        );
      },
      { numRuns: 8 },
    );
    const seen: string[] = [];
    let offset: number | null = 0;
    for (let i = 0; offset !== null && i < 50; i++) {
      const ex: Exchange = await list(2, offset);
      seen.push(...((ex.body?.data ?? []) as { id: string }[]).map((r) => r.id));
      offset = ex.body?.pagination?.hasMore ? ex.body.pagination.nextOffset : null;
    }
    ctx.expect(
      seen.length === total && new Set(seen).size === total,
      "formations/pagination",
      `walking pages of 2 gave ${seen.length} rows (${new Set(seen).size} distinct) for total ${total}`,
      first,
    );
  },
});

export const formationVisibility = check(
  "domain/formation-visibility",
  ["formations/visibility", "formations/mutability"],
  {
    needs: { roles: ["owner", "teammate"], formations: ["teammatePrivate"] },
    async run(ctx) {
      const f = ctx.target.formation("teammatePrivate");
      const params = { audienceId: ctx.target.audience(f.audience), formationId: f.id };
      const mine = await ctx.call({ op: "getFormation", params, as: ctx.as("teammate") });
      ctx.expectStatus(mine, 200, "formations/visibility", "the creator reading it");
      const theirs = await ctx.call({ op: "getFormation", params, as: ctx.as("owner") });
      ctx.expectStatus(theirs, 404, "formations/visibility", "another collaborator reading it");
      const listed = await ctx.call({
        op: "listFormations",
        params: { audienceId: params.audienceId },
        as: ctx.as("owner"),
      });
      ctx.expect(
        !listed.text.includes(f.id),
        "formations/visibility",
        "another collaborator's listing shows the private Formation",
        listed,
      );
      // --read-only: what follows changes the world; the summary says it was left out.
      if (ctx.info.readOnly)
        return ctx.partly("the recompute and delete by another collaborator were left out (--read-only)");
      const recompute = await ctx.call({ op: "recomputeFormation", params, as: ctx.as("owner") });
      ctx.expectStatus(recompute, 404, "formations/mutability", "another collaborator recomputing it");
      const del = await ctx.call({ op: "deleteFormation", params, as: ctx.as("owner") });
      ctx.expectStatus(del, 404, "formations/mutability", "another collaborator deleting it");
    },
  },
);

export const previewStream = check(
  "domain/preview-stream",
  ["preview/stream", "preview/thresholds", "formations/hypothesis-rules"],
  {
    needs: { roles: ["owner"], audiences: ["main"] },
    async run(ctx) {
      const audienceId = ctx.target.audience("main");
      const size = (await memberIds(ctx, audienceId)).length;
      const preview = (accept: string | null, json: unknown = { userInput: "Split them by country" }) =>
        ctx.call({
          op: "previewFormation",
          params: { audienceId },
          as: ctx.as("owner"),
          json,
          headers: accept === null ? {} : { accept },
          timeoutMs: 20_000,
        });
      for (const accept of [
        "application/x-ndjson",
        null,
        "*/*",
        "application/json;q=0.1, application/x-ndjson",
      ]) {
        const ex = await preview(accept);
        await ctx.part(() => checkStream(ctx, ex, size, `Accept ${accept ?? "(none)"}`));
      }
      for (const accept of ["application/json", "application/x-ndjson;q=0.2, application/json"]) {
        const ex = await preview(accept);
        const media = (ex.header("content-type") ?? "").split(";")[0];
        if (
          !ctx.expect(
            ex.status === 200 && media === "application/json",
            "preview/stream",
            `Accept ${accept}: ${ex.status} ${media}`,
            ex,
          )
        )
          continue;
        const d = ex.body?.data ?? {};
        ctx.expect(ex.body?.success === true, "preview/stream", "success is not true", ex);
        checkMeta(ctx, ex, d, size);
        ctx.coverage.limit("previewFormation:x-soft-warn-from");
        ctx.coverage.limit("previewFormation:x-hard-cap");
        ctx.expect(
          validate("#/components/schemas/FormationHypothesis", d.hypothesis).length === 0,
          "formations/hypothesis-rules",
          "the proposal breaks FormationHypothesis",
          ex,
        );
      }
      for (const accept of [
        "text/html",
        "application/xml",
        "application/json;q=0, application/x-ndjson;q=0",
      ]) {
        const ex = await preview(accept);
        ctx.expectStatus(ex, 406, "preview/stream", `Accept ${accept}`);
      }
    },
  },
);

export function checkMeta(ctx: CheckContext, ex: Exchange, d: Record<string, unknown>, size: number): void {
  ctx.expect(
    d.memberCount === size,
    "preview/thresholds",
    `memberCount ${d.memberCount}, the Audience has ${size} members`,
    ex,
  );
  ctx.expect(
    d.softWarn === size >= limits().previewSoftWarnFrom,
    "preview/thresholds",
    `softWarn ${d.softWarn} for ${size} members`,
    ex,
  );
  ctx.expect(
    d.hardCapExceeded === size > limits().previewHardCap,
    "preview/thresholds",
    `hardCapExceeded ${d.hardCapExceeded} for ${size} members`,
    ex,
  );
}

export function checkStream(ctx: CheckContext, ex: Exchange, size: number, label: string): void {
  const media = (ex.header("content-type") ?? "").split(";")[0];
  ctx.require(
    ex.status === 200 && media === "application/x-ndjson",
    "preview/stream",
    `${label}: ${ex.status} ${media}, not a 200 stream`,
    ex,
  );
  const { problems, events } = streamProblems(ex.text);
  for (const p of problems) ctx.expect(false, "preview/stream", `${label}: ${p}`, ex);
  const meta = events.find((e) => e.type === "meta")?.data;
  if (meta) checkMeta(ctx, ex, meta, size);
}

export const largePreview = check("domain/preview-hard-cap", ["preview/thresholds"], {
  title: `preview of an Audience over ${limits().previewHardCap} members reports hardCapExceeded`,
  needs: { roles: ["outsider"], audiences: ["large"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("large");
    const det = await ctx.call({ op: "getFilterAttributes", params: { audienceId }, as: ctx.as("outsider") });
    ctx.requireStatus(det, 200, "preview/thresholds", "a public viewer reading large's filter attributes");
    const size = det.body?.data?.totalMinds;
    if (typeof size !== "number") return ctx.inconclusive("large's filter attributes give no totalMinds");
    const ex = await ctx.call({
      op: "previewFormation",
      params: { audienceId },
      as: ctx.as("outsider"),
      headers: { accept: "application/json" },
      json: {},
      timeoutMs: 30_000,
    });
    ctx.requireStatus(ex, 200, "preview/thresholds", "a public viewer previewing large");
    checkMeta(ctx, ex, ex.body?.data ?? {}, size);
  },
});

export const formationRefusals = check("domain/formation-refusals", ["formations/create-refusals"], {
  needs: { roles: ["owner", "outsider"], audiences: ["empty", "large"] },
  // Refused writes, by design; a target that wrongly takes one changes, so read-only runs skip it.
  mutates: true,
  async run(ctx) {
    const json = { hypothesis: hypothesis(2, "refused") };
    for (const [handle, role, expect] of [
      [
        "empty",
        "owner",
        (ex: Exchange) => ex.body?.statusMessage === "Audience has no members to categorize",
      ],
      ["large", "outsider", (ex: Exchange) => ex.body?.data?.code === "FORMATION_CAP"],
    ] as const) {
      const params = { audienceId: ctx.target.audience(handle) };
      const listed = async () =>
        ((await ctx.call({ op: "listFormations", params, as: ctx.as(role) })).body?.pagination
          ?.total as number) ?? -1;
      const before = await listed();
      const ex = await ctx.call({ op: "createFormation", params, as: ctx.as(role), json });
      ctx.expect(
        ex.status === 400 && expect(ex),
        "formations/create-refusals",
        `creating a Formation of ${handle} answered ${ex.status} ${ex.body?.statusMessage ?? ""} ${ex.body?.data?.code ?? ""}`,
        ex,
      );
      ctx.expect(
        (await listed()) === before,
        "formations/create-refusals",
        `a refused Formation of ${handle} was listed afterwards`,
        null,
      );
    }
  },
});
