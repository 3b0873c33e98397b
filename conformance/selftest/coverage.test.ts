/** Shard coverage joins into what one run over everything would have reported. */

import { expect, it } from "vitest";
import { SENTENCE_INDEX } from "../index/index.ts";
import { joinCoverage, mergeCoverage } from "../lib/reporting/coverage.ts";

it("joining two shards' reports equals the report of both shards' fragments", () => {
  const a = { statuses: { getMe: [200], listApiKeys: [200] }, limits: [], transitions: ["apiKey: ∅→live"] };
  const b = {
    statuses: { getMe: [401], createApiKey: [201] },
    limits: ["createApiKey:name:maxLength"],
    transitions: ["apiKey: live→deleted", "formation: building→ready"],
  };
  const joined = joinCoverage(
    [mergeCoverage([a], SENTENCE_INDEX), mergeCoverage([b], SENTENCE_INDEX)],
    SENTENCE_INDEX,
  );
  expect(joined).toEqual(mergeCoverage([a, b], SENTENCE_INDEX));
  expect(joined.statuses.byOperation.getMe?.seen).toEqual([200, 401]);
  expect(joined.transitions.apiKey?.missing).toEqual([]);
  expect(joined.transitions.formation?.seen).toEqual(["building→ready"]);
  expect(joined.operations.exercised).toBe(3);
});
