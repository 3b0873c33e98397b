import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorCodesModule, GENERATED, namedCodes } from "../../scripts/generate-error-codes.ts";
import { NAMED_ERROR_CODES } from "./error-codes.gen.ts";

describe("the error codes the contract names", () => {
  it("are what `npm run generate:error-codes` makes of openapi.json now", () => {
    expect(readFileSync(GENERATED, "utf8"), "run `npm run generate:error-codes`").toBe(errorCodesModule());
  });

  it("are every code of the description's table, each where the contract answers it", () => {
    expect(Object.keys(NAMED_ERROR_CODES)).toEqual([
      "AUDIENCE_DISTRIBUTION_NOT_APPLICABLE",
      "AUDIENCE_EDIT_UNREAD",
      "COLLABORATORS_MANAGER_ONLY",
      "COLLABORATOR_IS_OWNER",
      "FORMATION_CAP",
      "PLAN_LIMIT",
      "RECALIBRATION_IN_PROGRESS",
      "TEAM_REQUIRED",
      "TEAM_SHARE_OWNER_ONLY",
      "VALIDATION_REPORT_UNAVAILABLE",
    ]);
    expect(NAMED_ERROR_CODES.TEAM_REQUIRED).toEqual(["PUT /audiences/{audienceId} 400"]);
  });

  it("reads an example's data.code and a schema's const, nothing else", () => {
    const doc = {
      paths: {
        "/x": {
          post: {
            responses: {
              "409": {
                content: { "application/json": { example: { data: { code: "BUSY", other: "NOT_A_CODE" } } } },
              },
            },
          },
        },
      },
      components: { schemas: { E: { properties: { data: { properties: { code: { const: "LIMIT" } } } } } } },
    };
    expect([...namedCodes(doc)]).toEqual([
      ["BUSY", ["POST /x 409"]],
      ["LIMIT", ["schema E"]],
    ]);
  });
});
