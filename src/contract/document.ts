/**
 * The contract, imported as JSON so that bundlers and browsers load it the same way Node does (no fs).
 */
import doc from "../../openapi.json" with { type: "json" };

export type OpenApiDocument = typeof doc;
export const contract: OpenApiDocument = doc;

/**
 * Resolves a local `#/…` JSON pointer in the contract. The document is ours and only uses local refs, so a
 * pointer walk is all that is needed at run time; loading and full `$ref` handling in tests and tools goes
 * through @apidevtools/swagger-parser.
 */
export function resolvePointer(ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`Only local refs are supported: ${ref}`);
  let node: unknown = contract;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) throw new Error(`Unresolvable ref: ${ref}`);
  }
  return node;
}

/** Follows `$ref` objects until a concrete object is reached. */
export function deref<T>(value: T | { $ref: string }): T {
  let v: unknown = value;
  while (v && typeof v === "object" && "$ref" in v && typeof (v as { $ref: unknown }).$ref === "string") {
    v = resolvePointer((v as { $ref: string }).$ref);
  }
  return v as T;
}
