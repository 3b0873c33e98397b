// Shared helpers for the contract tests: the parsed openapi.json plus JSON-pointer utilities.
// The document comes in through a JSON import (no node: modules), so this file stays usable anywhere.
import document from "../../openapi.json" with { type: "json" };

export type Json = null | boolean | number | string | Json[] | JsonObject;
export type JsonObject = { [key: string]: Json };

/** The HTTP methods an OpenAPI 3.1 path item may hold, lower-case as in the document. */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A fresh, mutable deep copy of openapi.json (callers may hand it to tools that mutate their input). */
export function loadOpenApi(): JsonObject {
  return structuredClone(document as unknown as JsonObject);
}

/** The entries of `value` when it is an object, otherwise none. */
export function entriesOf(value: Json | undefined): [string, Json][] {
  return isObject(value) ? Object.entries(value) : [];
}

/** A JSON pointer (RFC 6901) built from unescaped path segments, e.g. ["paths", "/a/{b}"] -> "/paths/~1a~1{b}". */
export function toPointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** The same location as a URI fragment (each segment percent-encoded), for use in `$ref`-style URIs. */
export function toFragment(segments: readonly string[]): string {
  return `#${segments.map((s) => `/${encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1"))}`).join("")}`;
}

/** A readable, greppable form of a location: paths["/auth/me"].get.responses["200"]. */
export function describeLocation(segments: readonly string[]): string {
  return segments
    .map((s, i) => {
      if (/^[A-Za-z_$][\w$]*$/.test(s)) return i === 0 ? s : `.${s}`;
      return /^\d+$/.test(s) ? `[${s}]` : `[${JSON.stringify(s)}]`;
    })
    .join("");
}

/** Follows a local `$ref` ("#/components/...") to its segments; throws for anything else. */
export function refSegments(ref: string): string[] {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, got ${ref}`);
  return ref
    .slice(2)
    .split("/")
    .map((s) => decodeURIComponent(s).replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The value at `segments` inside `root`, or undefined. */
export function at(root: Json, segments: readonly string[]): Json | undefined {
  let node: Json | undefined = root;
  for (const s of segments) {
    if (Array.isArray(node)) node = node[Number(s)];
    else if (isObject(node)) node = node[s];
    else return undefined;
  }
  return node;
}

/**
 * Follows `$ref` chains (local refs only) starting at `segments` and returns the final location and value.
 * Used for the non-schema `$ref`s of OpenAPI (responses, parameters, examples, ...).
 */
export function resolve(
  root: JsonObject,
  segments: readonly string[],
): { segments: string[]; value: Json | undefined } {
  let current = [...segments];
  let value = at(root, current);
  const seen = new Set<string>();
  while (isObject(value) && typeof value.$ref === "string") {
    const key = value.$ref;
    if (seen.has(key)) throw new Error(`circular $ref ${key}`);
    seen.add(key);
    current = refSegments(key);
    value = at(root, current);
  }
  return { segments: current, value };
}
