/**
 * The description as a document: the one this package was built from (`openapi`, imported as JSON so that
 * bundlers and browsers load it the same way Node does: no fs), or another version handed in (the kit's
 * `--contract`), checked to be one. Nothing here is ever replaced: a document is read through a Contract
 * (./contract.ts) made from it.
 */
import doc from "../../openapi.json" with { type: "json" };
import { unescapeSegment } from "./pointer.ts";

/**
 * An OpenAPI 3.1 document as its readers here need it: its parts are read through pointers. (Stated, not
 * `typeof` the JSON, so that the package's declarations do not reach for a file they do not ship.)
 */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, unknown>;
  [key: string]: unknown;
}
/** The description this package was built from: what the simulator serves. */
export const openapi: OpenApiDocument = doc;

/** `other` as an OpenAPI 3.1 document, or an Error saying why it is not one. */
export function asOpenApiDocument(other: unknown): OpenApiDocument {
  const d = other as { openapi?: unknown; paths?: unknown };
  if (
    typeof d?.openapi !== "string" ||
    !d.openapi.startsWith("3.1") ||
    typeof d.paths !== "object" ||
    !d.paths
  )
    throw new Error("not an OpenAPI 3.1 document (no `openapi: 3.1.x` or no `paths`)");
  return other as OpenApiDocument;
}

/** Reading local `#/…` references of one document. */
export interface Pointers {
  resolvePointer(ref: string): unknown;
  /** Follows `$ref` objects until a concrete object is reached. */
  deref<T>(value: T | { $ref: string }): T;
}

/**
 * The pointer readers of `document`. Our documents use only local refs, so a pointer walk is all that is
 * needed at run time; loading and full `$ref` handling in tests and tools go through swagger-parser.
 */
export function pointersInto(document: object): Pointers {
  const resolvePointer = (ref: string): unknown => {
    if (!ref.startsWith("#/")) throw new Error(`Only local refs are supported: ${ref}`);
    let node: unknown = document;
    for (const raw of ref.slice(2).split("/")) {
      node = (node as Record<string, unknown>)[unescapeSegment(raw)];
      if (node === undefined) throw new Error(`Unresolvable ref: ${ref}`);
    }
    return node;
  };
  const deref = <T>(value: T | { $ref: string }): T => {
    let v: unknown = value;
    while (v && typeof v === "object" && "$ref" in v && typeof (v as { $ref: unknown }).$ref === "string") {
      v = resolvePointer((v as { $ref: string }).$ref);
    }
    return v as T;
  };
  return { resolvePointer, deref };
}

/** The readers of this package's own description. */
export const { resolvePointer, deref } = pointersInto(openapi);
