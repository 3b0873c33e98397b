/**
 * Filter attributes: facets that agree with `mindIds` and `matchCount`, and `truncated` for a large Audience.
 */
import fc from "fast-check";
import { countryProblems, type Facet, filterShapeProblems } from "../../lib/description/answers.ts";
import { limits } from "../../lib/description/contract.ts";
import type { RuleId } from "../../lib/description/rules.ts";
import type { Exchange } from "../../lib/http/http.ts";
import type { Role } from "../../lib/http/target.ts";
import { type CheckContext, check } from "../../lib/running/context.ts";

export const facets = check("domain/filter-facets", ["filters/selection", "filters/values"], {
  needs: { roles: ["owner"], audiences: ["main"] },
  async run(ctx) {
    const audienceId = ctx.target.audience("main");
    const get = (filters?: unknown) =>
      ctx.call({
        op: "getFilterAttributes",
        params: { audienceId },
        as: ctx.as("owner"),
        query: filters === undefined ? {} : { filters: JSON.stringify(filters) },
      });
    const base = await get();
    ctx.requireStatus(base, 200, "filters/selection", "the owner reading main's filter attributes");
    const data = base.body.data;
    if (data?.truncated) return ctx.inconclusive("main is truncated: its facets do not count every Mind");
    checkShape(ctx, base, "filters/selection");
    for (const problem of countryProblems(data.facets)) ctx.expect(false, "filters/values", problem, base);
    // Attributes with one value per Mind: their facet (plus unknown) partitions the matches exactly.
    const single = (data.facets as Facet[]).filter(
      (f) =>
        f.values.length < limits().facetValues &&
        f.values.reduce((s, v) => s + v.count, 0) + f.unknownCount === data.matchCount,
    );
    if (single.length === 0)
      return ctx.inconclusive(
        "main has no attribute whose values and unknowns add up to its Minds: no selection is judged",
      );
    // `null` selects the Minds without a value, every time (not only when the property happens to pick it):
    // they and the Minds with any of the values split the Audience.
    const gap = single.find((f) => f.unknownCount > 0 && f.unknownCount < data.matchCount);
    if (gap) {
      const none = await get({ [gap.key]: null });
      const some = await get({ [gap.key]: gap.values.map((v) => v.value) });
      const [n, s] = [none.body?.data, some.body?.data];
      if (ctx.expectStatus(none, 200, "filters/selection", `${gap.key}: null`) && n && s) {
        const ids = new Set([...n.mindIds, ...s.mindIds]);
        const split =
          n.matchCount === gap.unknownCount &&
          n.matchCount + s.matchCount === data.matchCount &&
          ids.size === data.matchCount &&
          (n.mindIds as string[]).every((id) => !(s.mindIds as string[]).includes(id));
        ctx.expect(
          split,
          "filters/selection",
          `${gap.key}: null matched ${n.matchCount} Minds, ${gap.unknownCount} have no value; with every value ${s.matchCount} of ${data.matchCount}`,
          none,
        );
      }
    }
    const selection = fc
      .subarray(single, { minLength: 1, maxLength: 2 })
      .chain((fs) =>
        fc.tuple(
          ...fs.map((f) =>
            fc.tuple(
              fc.constant(f),
              fc.subarray([...f.values.map((v) => v.value), null], { minLength: 1, maxLength: 3 }),
            ),
          ),
        ),
      );
    await ctx.property(
      "selections of facet values",
      selection,
      async (picks) => {
        const filters = Object.fromEntries(
          picks.map(([f, vals]) => [
            f.key,
            vals.includes(null) && vals.length === 1 ? null : vals.filter((v) => v !== null),
          ]),
        );
        const ex = await get(filters);
        ctx.requireStatus(ex, 200, "filters/selection", "a selection of existing values");
        checkShape(ctx, ex, "filters/selection");
        const d = ex.body.data;
        // An attribute outside the selection is counted over the selection's matches: for one with a single
        // value per Mind, its values and unknowns add up to matchCount.
        for (const other of single.filter((f) => !(f.key in filters))) {
          const facet = (d.facets as Facet[]).find((x) => x.key === other.key);
          if (!facet) {
            ctx.inconclusive(
              `the facet ${other.key} is missing from a selection's answer: its counts are not judged`,
            );
            continue;
          }
          if (facet.values.length >= limits().facetValues) {
            ctx.inconclusive(
              `the facet ${other.key} lists as many values as an answer holds (${limits().facetValues}): its sum is not judged`,
            );
            continue;
          }
          const sum = facet.values.reduce((n, v) => n + v.count, 0) + facet.unknownCount;
          ctx.expect(
            sum === d.matchCount,
            "filters/selection",
            `facet ${other.key}, outside the selection, counts ${sum} Minds; matchCount is ${d.matchCount}`,
            ex,
          );
        }
        for (const [f] of picks) {
          const sel = filters[f.key] as string[] | null;
          const facet = (d.facets as Facet[]).find((x) => x.key === f.key);
          if (!facet) {
            ctx.inconclusive(
              `the selected attribute's facet ${f.key} is missing from the answer: not judged`,
            );
            continue;
          }
          await ctx.part(() => sameAsWithout(ctx, get, filters, facet, ex));
          const counted =
            sel === null
              ? facet.unknownCount
              : facet.values.filter((v) => sel.includes(v.value)).reduce((s, v) => s + v.count, 0);
          ctx.expect(
            counted === d.matchCount,
            "filters/selection",
            `facet ${f.key} counts ${counted} for the selected values, matchCount is ${d.matchCount}`,
            ex,
          );
        }
      },
      { numRuns: 8 },
    );
  },
});

/**
 * "Each facet counts the Minds matching every other attribute's selection": a selected attribute's facet
 * is the one the same selection without that attribute gives (where it is not selected, its facet counts
 * every match). So it lists the values outside its own selection too, with their counts.
 */
async function sameAsWithout(
  ctx: CheckContext,
  get: (filters?: unknown) => Promise<Exchange>,
  filters: Record<string, unknown>,
  facet: Facet,
  ex: Exchange,
): Promise<void> {
  const others = Object.fromEntries(Object.entries(filters).filter(([k]) => k !== facet.key));
  const without = await get(Object.keys(others).length > 0 ? others : undefined);
  ctx.requireStatus(without, 200, "filters/selection", "the same selection without the attribute");
  const expected = (without.body?.data?.facets as Facet[] | undefined)?.find((x) => x.key === facet.key);
  if (without.body?.data?.truncated || !expected)
    return ctx.inconclusive(
      `the facet ${facet.key} without its selection is truncated or missing: not compared`,
    );
  if (expected.values.length >= limits().facetValues)
    return ctx.inconclusive(
      `the facet ${facet.key} without its selection lists as many values as an answer holds (${limits().facetValues}): not compared`,
    );
  const counts = (f: Facet) =>
    JSON.stringify([
      f.unknownCount,
      f.values
        .filter((v) => v.count > 0)
        .map((v) => [v.value, v.count])
        .sort(),
    ]);
  ctx.expect(
    counts(facet) === counts(expected),
    "filters/selection",
    `facet ${facet.key} under the selection ${JSON.stringify(filters)} counts ${counts(facet)} ([unknown, [value, count]…]); the Minds matching every other attribute's selection give ${counts(expected)}`,
    ex,
  );
}

export function checkShape(ctx: CheckContext, ex: Exchange, rule: RuleId): void {
  for (const problem of filterShapeProblems(ex.body?.data)) ctx.expect(false, rule, problem, ex);
}

export const largeAudience = check("domain/filter-truncation", ["filters/truncation"], {
  needs: { roles: ["outsider"], audiences: ["large", "main"] },
  async run(ctx) {
    for (const handle of ["large", "main"]) {
      const audienceId = ctx.target.audience(handle);
      const role: Role = handle === "large" ? "outsider" : "owner";
      if (!ctx.target.has(role)) continue;
      const ex = await ctx.call({ op: "getFilterAttributes", params: { audienceId }, as: ctx.as(role) });
      if (!ctx.expectStatus(ex, 200, "filters/truncation", `${role} reading ${handle}'s filter attributes`))
        continue;
      const d = ex.body.data;
      ctx.expect(
        d.truncated === d.totalMinds > limits().mindsRead,
        "filters/truncation",
        `totalMinds ${d.totalMinds} with truncated ${d.truncated}`,
        ex,
      );
      ctx.expect(
        d.mindIds.length <= limits().mindsRead,
        "filters/truncation",
        `${d.mindIds.length} mindIds returned`,
        ex,
      );
      ctx.coverage.limit("getFilterAttributes:x-max-minds-read");
    }
  },
});
