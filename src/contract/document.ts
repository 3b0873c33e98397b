/**
 * The contract, imported as JSON so that bundlers and browsers load it the same way Node does (no fs).
 */
import doc from "../../openapi.json" with { type: "json" };
import { unescapeSegment } from "./pointer.ts";

export type OpenApiDocument = typeof doc;
/** The contract every module reads. Only `useContract`, before any of them loads, replaces it. */
export let contract: OpenApiDocument = doc;

/**
 * Another version of the contract (the conformance kit's `--contract`): it must be set before any module
 * that derives from the contract (operations, validators, limits) is loaded, since they read it once.
 */
export function useContract(other: unknown): void {
  const d = other as { openapi?: unknown; paths?: unknown };
  if (
    typeof d?.openapi !== "string" ||
    !d.openapi.startsWith("3.1") ||
    typeof d.paths !== "object" ||
    !d.paths
  )
    throw new Error("not an OpenAPI 3.1 document (no `openapi: 3.1.x` or no `paths`)");
  contract = other as OpenApiDocument;
}

/**
 * Resolves a local `#/…` JSON pointer in the contract. The document is ours and only uses local refs, so a
 * pointer walk is all that is needed at run time; loading and full `$ref` handling in tests and tools goes
 * through @apidevtools/swagger-parser.
 */
export function resolvePointer(ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`Only local refs are supported: ${ref}`);
  let node: unknown = contract;
  for (const raw of ref.slice(2).split("/")) {
    const key = unescapeSegment(raw);
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
