import { describe, expect, it } from "vitest";
import { openapi as contract } from "./document.ts";
import { LIMIT_POINTERS, LIMITS } from "./limits.ts";

/**
 * Where the contract states a limit: a maximum length, count or value, a minimum count above one, and
 * every numeric `x-` rule (`x-max-…`, `x-soft-warn-from`, `x-hard-cap`, …) or limit object. Not limits:
 * examples, percentages (`progress` 0..100), the envelope's status range, and "at least one" minimums.
 */
function statedLimits(): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown, pointer: string): void => {
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (key === "example" || key === "examples") continue;
      if (key === "x-member-limits" || key === "x-rate-limit") {
        for (const [k, v] of Object.entries(value as object))
          if (typeof v === "number") found.add(`${here}/${k}`);
        continue;
      }
      const limitKeyword =
        key === "maxLength" ||
        key === "maxItems" ||
        (key === "minItems" && typeof value === "number" && value > 1) ||
        (key === "maximum" && !/\/progress\/|ErrorEnvelope/.test(here)) ||
        (key.startsWith("x-") && !key.startsWith("x-min-") && typeof value === "number");
      if (limitKeyword && typeof value === "number") found.add(here);
      walk(value, here);
    }
  };
  walk(contract, "#");
  return found;
}

describe("the contract's limits", () => {
  it("are all read by src/contract/limits.ts, and it reads nothing the contract does not state", () => {
    const stated = statedLimits();
    const read = new Set<string>(Object.values(LIMIT_POINTERS));
    expect(
      [...stated].filter((p) => !read.has(p)),
      "stated in openapi.json, not in LIMIT_POINTERS",
    ).toEqual([]);
    expect(
      [...read].filter((p) => !stated.has(p)),
      "in LIMIT_POINTERS, not a limit openapi.json states",
    ).toEqual([]);
  });

  it("are the numbers the description gives", () => {
    expect(LIMITS).toMatchObject({
      rateLimitPerMinute: 300,
      apiKeyName: 100,
      duplicateName: 200,
      idempotencyKey: 128,
      mindIdsBeforeDeduplication: 1000,
      filtersChars: 8192,
      filterValuesPerAttribute: 50,
      facetValues: 200,
      mindsRead: 5000,
      formationPage: 100,
      subgroupsMin: 2,
      subgroupsMax: 15,
      previewSoftWarnFrom: 50,
      userInput: 2000,
      pendingRecalibrations: 10,
      membersBody: 64 * 1024,
      recalibrateBody: 32 * 1024 * 1024,
    });
  });
});
