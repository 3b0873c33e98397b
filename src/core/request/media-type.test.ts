/**
 * A body that is not JSON, sent to an operation that takes JSON, is 415 in the envelope and changes
 * nothing: every such operation of the contract, with the usual wrong types and none at all.
 */
import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import { operations } from "../../contract/operations.ts";
import { stateDigest } from "../world/digest.ts";

const jsonOperations = operations.filter((op) => op.bodySchemaRef !== null);

describe("415 for a body that is not JSON", () => {
  it("covers every operation that takes a JSON body", () => {
    expect(jsonOperations.map((op) => op.operationId).sort()).toEqual(
      [
        "addMembers",
        "createApiKey",
        "createCheckoutSession",
        "createFormation",
        "duplicateAudience",
        "exportAudience",
        "previewFormation",
        "recalibrateAudience",
        "updateAudience",
      ].sort(),
    );
    for (const op of jsonOperations) expect(op.statuses).toContain(415);
  });

  for (const op of jsonOperations) {
    it(`${op.operationId}: text/plain, form data, none: 415, nothing changed; JSON types with parameters pass`, async () => {
      const h = await harness();
      const path = op.prefixes[0] + op.path.replace("{audienceId}", h.id("audiences", "main"));
      const body = JSON.stringify({ name: "Not JSON by type" });
      const before = stateDigest(h.sim.state);
      for (const type of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        null,
      ]) {
        const headers: Record<string, string> = { "idempotency-key": "media-type-1" };
        if (type !== null) headers["content-type"] = type;
        const res = await h.call(op.method, path, { raw: body, headers, untyped: type === null });
        expect(res.status, `${type}: ${res.text}`).toBe(415);
        expect(res.body).toEqual({
          statusCode: 415,
          statusMessage: "Content-Type must be application/json",
          message: "Content-Type must be application/json",
          url: path,
          error: true,
        });
      }
      expect(stateDigest(h.sim.state)).toBe(before);
      for (const type of [
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/merge-patch+json",
      ]) {
        const res = await h.call(op.method, path, {
          raw: body,
          headers: { "content-type": type, "idempotency-key": "k2" },
        });
        expect(res.status, type).not.toBe(415);
      }
    });
  }
});
