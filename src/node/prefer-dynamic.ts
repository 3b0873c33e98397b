/**
 * `Prefer: dynamic=true` in the Node host: bodies generated from the response schema by Prism's own
 * generator (@stoplight/prism-http, json-schema-faker underneath), so teams moving from Prism get the same
 * kind of data. Injected into the core as `generateBody`; the core and the browser bundle never load it.
 *
 * Prism's generator does not know the contract's `x-` keywords (unique item properties, say), so a body
 * is validated before it is served; a few seeds are tried and, when none gives a contract-valid body, the
 * core falls back to the contract's example and says so in `x-sim-prefer-fallback`.
 */
import { createRequire } from "node:module";
import { resolvePointer } from "../contract/document.ts";
import { validate } from "../contract/validate.ts";
import type { GenerateBody, GenerateBodyInput } from "../core/request/preferred-answers.ts";

type PrismGenerate = (resource: unknown, bundle: unknown, schema: unknown, seed?: string) => Either;
type Either = { _tag: "Left"; left: Error } | { _tag: "Right"; right: unknown };

const ATTEMPTS = 8;

let generator: Promise<PrismGenerate> | null = null;

/** Prism is large (faker); it is loaded on the first `dynamic=true` request, not at start-up. */
function loadPrism(): Promise<PrismGenerate> {
  generator ??= import("@stoplight/prism-http/dist/mocker/generator/JSONSchema.js").then((m) => {
    const mod = m as unknown as { generate?: PrismGenerate; default?: { generate: PrismGenerate } };
    const generate = mod.generate ?? mod.default?.generate;
    if (!generate) throw new Error("@stoplight/prism-http has no JSONSchema generate()");
    return generate;
  });
  return generator;
}

/** Prism's generator wants a self-contained schema: the contract's local `$ref`s are inlined (no cycles). */
const inlined = new Map<string, unknown>();
function inlineSchema(ref: string): unknown {
  let schema = inlined.get(ref);
  if (schema === undefined) {
    schema = inline(resolvePointer(ref), 0);
    inlined.set(ref, schema);
  }
  return schema;
}

function inline(node: unknown, depth: number): unknown {
  if (depth > 64) throw new Error("schema nests too deeply to inline");
  if (Array.isArray(node)) return node.map((n) => inline(n, depth + 1));
  if (node && typeof node === "object") {
    const o = node as Record<string, unknown>;
    if (typeof o.$ref === "string") return inline(resolvePointer(o.$ref), depth + 1);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inline(v, depth + 1)]));
  }
  return node;
}

/** Why Prism cannot be loaded here, or null when it can: it is an optional peer of the package. */
function prismMissing(): string | null {
  try {
    createRequire(import.meta.url).resolve("@stoplight/prism-http/package.json");
    return null;
  } catch {
    return "@stoplight/prism-http is not installed (an optional peer: npm install @stoplight/prism-http)";
  }
}

/**
 * A `generateBody` for `createSimulator` that serves only bodies the contract accepts. Whether Prism can be
 * loaded is found out when first asked (`unavailable`, or the first Prefer: dynamic=true), not before the
 * server's first answer.
 */
export function prismBodyGenerator(): GenerateBody {
  // Undefined until asked; null (Prism is there) is an answer too, so `??=` would ask again every time.
  let missing: string | null | undefined;
  const why = (): string | null => {
    if (missing === undefined) missing = prismMissing();
    return missing;
  };
  const generate = async (input: GenerateBodyInput) => {
    if (why() !== null || input.mediaType !== "application/json") return undefined;
    const prism = await loadPrism();
    const schema = inlineSchema(input.schemaRef);
    for (let i = 0; i < ATTEMPTS; i++) {
      const result = prism({}, undefined, schema, `${input.seed}:${i}`);
      if (result._tag === "Left") continue;
      if (validate(input.schemaRef, result.right).length === 0) return result.right;
    }
    return undefined;
  };
  return Object.defineProperty(generate, "unavailable", { get: () => why() ?? undefined, enumerable: true });
}
