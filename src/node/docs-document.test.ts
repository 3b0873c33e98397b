import { describe, expect, it } from "vitest";
import { openapi } from "../contract/document.ts";
import { withStatedTypes } from "./docs-document.ts";

const ANY = ["object", "array", "string", "number", "boolean", "null"];

describe("withStatedTypes", () => {
  it("states a type where the schema had none, and changes nothing else", () => {
    const doc = {
      openapi: "3.1.0",
      paths: {
        "/x": {
          get: {
            parameters: [{ name: "q", in: "query", schema: { description: "anything" } }],
            responses: {
              200: { content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } },
            },
          },
        },
      },
      components: {
        schemas: {
          A: {
            type: "object",
            properties: {
              any: { description: "its shape is not shown" },
              either: { oneOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] },
              count: { anyOf: [{ type: "integer" }, { $ref: "#/components/schemas/B" }] },
              flag: { type: "boolean" },
            },
            additionalProperties: { not: { enum: ["x"] } },
          },
          B: { allOf: [{ $ref: "#/components/schemas/A" }], description: "a composition" },
        },
      },
    };
    const before = structuredClone(doc);
    const out = withStatedTypes(doc) as unknown as typeof doc;
    expect(doc).toEqual(before);
    const a = out.components.schemas.A as Record<string, any>;
    expect(a.properties.any).toEqual({ description: "its shape is not shown", type: ANY });
    expect(a.properties.either.type).toEqual(["array", "null"]);
    expect(a.properties.either.oneOf[0]).toEqual({ type: "array", items: { type: "string" } });
    // A branch that is a reference says nothing of its type here.
    expect(a.properties.count.type).toEqual(ANY);
    expect(a.properties.flag).toEqual({ type: "boolean" });
    expect(a.additionalProperties.not).toEqual({ enum: ["x"], type: ANY });
    expect((out.components.schemas.B as Record<string, unknown>).type).toEqual(ANY);
    expect((out.paths["/x"].get.parameters[0] as Record<string, unknown>).schema).toEqual({
      description: "anything",
      type: ANY,
    });
    expect(out.paths["/x"].get.responses[200].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/A",
    });
  });

  it("adds only `type` to the contract, nothing else", () => {
    const added: string[] = [];
    /** `b` is `a` with `type` keys added (their pointers in `added`). */
    const same = (a: unknown, b: unknown, at: string): void => {
      if (typeof a !== "object" || a === null) {
        expect(b, at).toEqual(a);
        return;
      }
      expect(Object.keys(b as object).length, at).toBeGreaterThanOrEqual(Object.keys(a).length);
      for (const [k, v] of Object.entries(b as object)) {
        if (k in a) same((a as Record<string, unknown>)[k], v, `${at}/${k}`);
        else {
          expect(k, at).toBe("type");
          added.push(at);
        }
      }
    };
    same(openapi, withStatedTypes(openapi), "#");
    // What the contract leaves untyped: the schemas whose shape it does not show, and the branchy ones.
    expect(added).toContain("#/components/schemas/TopicResult/properties/chart");
    expect(added).toContain("#/components/schemas/FilterSelection/additionalProperties");
    expect(added.every((p) => !p.includes("/examples/"))).toBe(true);
  });
});
