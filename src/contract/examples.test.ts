// Every example in openapi.json validates against the schema that owns it (ajv, JSON Schema 2020-12, strict
// mode), every schema compiles in strict mode, and every success response with a body shows an example.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import {
  at,
  describeLocation,
  entriesOf,
  HTTP_METHODS,
  isObject,
  type Json,
  type JsonObject,
  loadOpenApi,
  resolve,
  toFragment,
} from "./load.ts";

type Segments = readonly string[];

interface ExampleCase {
  /** Where the example is written. */
  where: Segments;
  /** The schema it must satisfy. */
  schema: Segments;
  value: Json;
}

/** Keywords of the OpenAPI 3.1 base dialect that are not JSON Schema 2020-12 keywords (annotations only). */
const OAS_DIALECT_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"];

/** JSON Schema keywords whose value is one subschema / a map of subschemas / a list of subschemas. */
const SUBSCHEMA = [
  "additionalProperties",
  "contains",
  "contentSchema",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const SUBSCHEMA_MAPS = ["$defs", "definitions", "dependentSchemas", "patternProperties", "properties"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];

const doc = loadOpenApi();

/** Everything the walk below finds in the document. */
const found = {
  /** Top-level schemas: components.schemas.* and the `schema` of every media type, parameter and header. */
  schemas: [] as Segments[],
  examples: [] as ExampleCase[],
  /** `x-` keywords used inside schemas; strict mode needs them declared. */
  extensionKeywords: new Set<string>(),
};

function walkSchema(segments: Segments, isRoot = true): void {
  const schema = at(doc, segments);
  if (!isObject(schema)) return;
  if (isRoot) found.schemas.push(segments);
  for (const key of Object.keys(schema)) if (key.startsWith("x-")) found.extensionKeywords.add(key);
  if (Array.isArray(schema.examples)) {
    schema.examples.forEach((value, i) => {
      found.examples.push({ where: [...segments, "examples", String(i)], schema: segments, value });
    });
  }
  if ("example" in schema) {
    found.examples.push({ where: [...segments, "example"], schema: segments, value: schema.example ?? null });
  }
  for (const key of SUBSCHEMA) if (key in schema) walkSchema([...segments, key], false);
  for (const key of SUBSCHEMA_MAPS) {
    for (const [name] of entriesOf(schema[key])) walkSchema([...segments, key, name], false);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const i of list.keys()) walkSchema([...segments, key, String(i)], false);
  }
}

/** `example` and `examples` of a media type, parameter or header, checked against `schema` next to them. */
function walkExamplesOf(segments: Segments, owner: JsonObject): void {
  if (!("schema" in owner)) return;
  const schema = [...segments, "schema"];
  walkSchema(schema);
  if ("example" in owner)
    found.examples.push({ where: [...segments, "example"], schema, value: owner.example ?? null });
  for (const [name] of entriesOf(owner.examples)) {
    const example = resolve(doc, [...segments, "examples", name]).value;
    // Examples given only by externalValue are not in the document, so there is nothing to check.
    if (isObject(example) && "value" in example) {
      found.examples.push({ where: [...segments, "examples", name], schema, value: example.value ?? null });
    }
  }
}

function walkMediaTypes(segments: Segments, content: Json | undefined): void {
  for (const [mediaType, media] of entriesOf(content)) {
    if (!isObject(media)) continue;
    const mediaAt = [...segments, mediaType];
    walkExamplesOf(mediaAt, media);
    for (const [name, encoding] of entriesOf(media.encoding)) {
      if (isObject(encoding)) walkHeaders([...mediaAt, "encoding", name, "headers"], encoding.headers);
    }
  }
}

/** A parameter or header object; `$ref`s are skipped because their targets are walked where they live. */
function walkParameterLike(segments: Segments, value: Json | undefined): void {
  if (!isObject(value) || "$ref" in value) return;
  walkExamplesOf(segments, value);
  walkMediaTypes([...segments, "content"], value.content);
}

function walkHeaders(segments: Segments, headers: Json | undefined): void {
  for (const [name, header] of entriesOf(headers)) walkParameterLike([...segments, name], header);
}

function walkParameters(segments: Segments, parameters: Json | undefined): void {
  if (!Array.isArray(parameters)) return;
  for (const [i, p] of parameters.entries()) walkParameterLike([...segments, String(i)], p);
}

function walkRequestBody(segments: Segments, body: Json | undefined): void {
  if (isObject(body) && !("$ref" in body)) walkMediaTypes([...segments, "content"], body.content);
}

function walkResponse(segments: Segments, response: Json | undefined): void {
  if (!isObject(response) || "$ref" in response) return;
  walkHeaders([...segments, "headers"], response.headers);
  walkMediaTypes([...segments, "content"], response.content);
}

function walkPathItem(segments: Segments, item: Json | undefined): void {
  if (!isObject(item) || "$ref" in item) return;
  walkParameters([...segments, "parameters"], item.parameters);
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (!isObject(op)) continue;
    const opAt = [...segments, method];
    walkParameters([...opAt, "parameters"], op.parameters);
    walkRequestBody([...opAt, "requestBody"], op.requestBody);
    for (const [status, response] of entriesOf(op.responses))
      walkResponse([...opAt, "responses", status], response);
    for (const [name, callback] of entriesOf(op.callbacks))
      walkPathItems([...opAt, "callbacks", name], callback);
  }
}

function walkPathItems(segments: Segments, items: Json | undefined): void {
  for (const [key, item] of entriesOf(items)) walkPathItem([...segments, key], item);
}

walkPathItems(["paths"], doc.paths);
walkPathItems(["webhooks"], doc.webhooks);
const components = isObject(doc.components) ? doc.components : {};
for (const [name] of entriesOf(components.schemas)) walkSchema(["components", "schemas", name]);
for (const [name, r] of entriesOf(components.responses)) walkResponse(["components", "responses", name], r);
for (const [name, p] of entriesOf(components.parameters))
  walkParameterLike(["components", "parameters", name], p);
for (const [name, h] of entriesOf(components.headers)) walkParameterLike(["components", "headers", name], h);
for (const [name, b] of entriesOf(components.requestBodies))
  walkRequestBody(["components", "requestBodies", name], b);
walkPathItems(["components", "pathItems"], components.pathItems);
for (const [name, c] of entriesOf(components.callbacks)) walkPathItems(["components", "callbacks", name], c);

// The whole document is added to ajv under DOC_ID, so a location in it is `${DOC_ID}#/json/pointer` and the
// schemas' own `$ref`s ("#/components/schemas/X") resolve inside it. It sits under `$defs` of a wrapper
// because ajv compiles the root of a schema resource it resolves into, and the root of an OpenAPI document is
// not a schema.
const DOC_ID = "https://contract.invalid/openapi.json";
const ajv = new Ajv2020({
  strict: true,
  allErrors: true,
  // OpenAPI 3.1 says "nullable" as `type: ["string", "null"]`; ajv's strictTypes rejects such unions otherwise.
  allowUnionTypes: true,
});
addFormats.default(ajv);
ajv.addVocabulary([...OAS_DIALECT_KEYWORDS, ...found.extensionKeywords]);
ajv.addSchema({ $id: "https://contract.invalid/root.json", $defs: { openapi: { ...doc, $id: DOC_ID } } });

function validatorFor(segments: Segments) {
  const validate = ajv.getSchema(`${DOC_ID}${toFragment(segments)}`);
  if (validate === undefined) throw new Error(`no schema at ${describeLocation(segments)}`);
  return validate;
}

/** What ajv finds wrong with `value` against the schema at `segments` (none when it is valid). */
function problemsOf(segments: Segments, value: Json): string[] {
  const validate = validatorFor(segments);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || "(the value)"} ${e.message ?? "is invalid"} ${JSON.stringify(e.params)}`,
  );
}

describe("schemas", () => {
  it("were found in the document", () => {
    expect(found.schemas.length).toBeGreaterThan(0);
  });

  it.each(
    found.schemas.map((s) => [describeLocation(s), s] as const),
  )("%s compiles in ajv strict mode", (_, s) => {
    expect(() => validatorFor(s)).not.toThrow();
  });
});

describe("examples", () => {
  it("were found in the document", () => {
    expect(found.examples.length).toBeGreaterThan(0);
  });

  it.each(
    found.examples.map((c) => [describeLocation(c.where), c] as const),
  )("%s matches its schema", (_, c) => {
    expect(
      problemsOf(c.schema, c.value),
      `example does not match the schema at ${describeLocation(c.schema)}`,
    ).toEqual([]);
    // contentSchema is only an annotation in JSON Schema, so a string holding JSON or NDJSON is checked here.
    const schema = at(doc, c.schema);
    if (!isObject(schema) || !("contentSchema" in schema) || typeof c.value !== "string") return;
    const documents =
      schema.contentMediaType === "application/x-ndjson"
        ? c.value.split("\n").filter((line) => line.trim() !== "")
        : schema.contentMediaType === "application/json"
          ? [c.value]
          : [];
    documents.forEach((text, i) => {
      const where = `${documents.length > 1 ? `line ${i + 1} of ` : ""}the example`;
      let parsed: Json;
      try {
        parsed = JSON.parse(text) as Json;
      } catch (error) {
        expect.fail(`${where} is not JSON (${String(error)}): ${text}`);
      }
      const contentSchema = [...c.schema, "contentSchema"];
      expect(
        problemsOf(contentSchema, parsed),
        `${where} does not match the schema at ${describeLocation(contentSchema)}`,
      ).toEqual([]);
    });
  });
});

function hasOwnExample(media: JsonObject, segments: Segments): boolean {
  if ("example" in media || entriesOf(media.examples).length > 0) return true;
  const schema = resolve(doc, [...segments, "schema"]).value;
  return (
    isObject(schema) &&
    ("example" in schema || (Array.isArray(schema.examples) && schema.examples.length > 0))
  );
}

describe("success responses", () => {
  it("each show an example for every media type of their body", () => {
    const missing: string[] = [];
    for (const [path, item] of entriesOf(doc.paths)) {
      if (!isObject(item)) continue;
      for (const method of HTTP_METHODS) {
        for (const [status] of entriesOf(isObject(item[method]) ? item[method].responses : undefined)) {
          if (!/^2(\d\d|XX)$/.test(status)) continue;
          const response = resolve(doc, ["paths", path, method, "responses", status]);
          if (!isObject(response.value)) continue;
          for (const [mediaType, media] of entriesOf(response.value.content)) {
            if (isObject(media) && !hasOwnExample(media, [...response.segments, "content", mediaType])) {
              missing.push(`${method.toUpperCase()} ${path} ${status} ${mediaType}`);
            }
          }
        }
      }
    }
    expect(missing, "2xx bodies without an example on the media type or its schema").toEqual([]);
  });
});
