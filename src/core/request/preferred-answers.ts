/**
 * Prism-compatible per-request control through the `Prefer` header (RFC 7240 syntax), for teams moving
 * from Prism:
 *
 * | preference     | answer                                                                              |
 * |----------------|-------------------------------------------------------------------------------------|
 * | `code=NNN`     | that documented status, with the contract's example for it (the first one)          |
 * | `example=NAME` | the named example (of `code`'s response, else of the first response that has it)    |
 * | `dynamic=true` | a body generated from the response's schema by the host's generator (Prism's, in     |
 * |                | the Node host); a host without one serves the example and says so in a header       |
 *
 * The engine calls this after routing, authentication and the rate limit, and only when the request
 * carries one of these preferences: such an answer never runs the operation, so it changes no state. A
 * status the operation does not document, an unknown example name or a malformed value is a 422 envelope
 * that lists what the operation offers. `Preference-Applied` names what was honoured.
 */
import type { Pointers } from "../../contract/document.ts";
import type { Operation } from "../../contract/operations.ts";
import { contractPointer, pointerSegment } from "../../contract/pointer.ts";
import { ApiError } from "../errors.ts";
import { Answer } from "./exchange.ts";

export interface GenerateBodyInput {
  operationId: string;
  status: number;
  mediaType: string;
  /** JSON pointer to the body's schema in the contract (for the generator and for validating its output). */
  schemaRef: string;
  /** Makes generation repeatable: same simulator seed and request sequence, same body. */
  seed: string;
}

/**
 * A schema-driven body generator, injected by hosts that have one (the Node host uses Prism's). Returning
 * `undefined` (or throwing) means "could not generate a contract-valid body"; the example is served then.
 */
export type GenerateBody = ((input: GenerateBodyInput) => unknown | Promise<unknown>) & {
  /** Why this host cannot generate at all (say, its generator is not installed): said in the fallback header. */
  unavailable?: string;
};

export interface Preferences {
  code?: number;
  example?: string;
  dynamic?: boolean;
}

/** The response header that explains a fallback (no generator in this host, or it gave up). */
export const FALLBACK_HEADER = "x-sim-prefer-fallback";

type Json = Record<string, unknown>;

/**
 * The Prism preferences in a `Prefer` header, or null when it has none (other preferences such as
 * `return=minimal` or `respond-async` are not ours and leave the request alone).
 */
export function parsePrefer(header: string): Preferences | null {
  const raw: Record<string, string> = {};
  for (const part of header.split(",")) {
    // Each preference is `token[=value]` followed by `;`-separated parameters, which we ignore.
    const pref = part.split(";")[0]?.trim() ?? "";
    const eq = pref.indexOf("=");
    const name = (eq < 0 ? pref : pref.slice(0, eq)).trim().toLowerCase();
    if (name !== "code" && name !== "example" && name !== "dynamic") continue;
    let value = eq < 0 ? "" : pref.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    raw[name] ??= value;
  }
  if (Object.keys(raw).length === 0) return null;
  const prefs: Preferences = {};
  if (raw.code !== undefined) {
    if (!/^[1-5]\d\d$/.test(raw.code)) {
      throw preferError(`Prefer code must be a three-digit HTTP status, not "${raw.code}"`, {
        code: "PREFER_INVALID",
        preference: "code",
      });
    }
    prefs.code = Number(raw.code);
  }
  if (raw.example !== undefined) {
    if (raw.example === "") {
      throw preferError("Prefer example needs a name, e.g. example=notFound", {
        code: "PREFER_INVALID",
        preference: "example",
      });
    }
    prefs.example = raw.example;
  }
  if (raw.dynamic !== undefined) {
    const v = raw.dynamic.toLowerCase();
    if (v !== "true" && v !== "false" && v !== "") {
      throw preferError(`Prefer dynamic must be true or false, not "${raw.dynamic}"`, {
        code: "PREFER_INVALID",
        preference: "dynamic",
      });
    }
    prefs.dynamic = v !== "false";
  }
  return prefs;
}

export interface PreferContext {
  /** The request path, echoed in error envelopes. */
  path: string;
  /** The request's Accept header, to pick among a status's media types. */
  accept: string | null;
  /** Headers the engine has already decided (rate limit, Cache-Control). */
  headers: Record<string, string>;
  generateBody: GenerateBody | undefined;
  seed: string;
  /** The contract the operation is read from (its responses and examples). */
  pointers: Pointers;
}

/** The answer the preferences ask for; throws a 422 ApiError when the operation cannot give it. */
export async function preferredResponse(
  op: Operation,
  prefs: Preferences,
  ctx: PreferContext,
): Promise<Answer> {
  const p = ctx.pointers;
  const status = pickStatus(p, op, prefs);
  const { response, at } = responseAt(p, op, status);
  const content = (response.content ?? {}) as Json;
  const mediaTypes = Object.keys(content);
  const applied: string[] = [`code=${status}`];
  const headers: Record<string, string> = { ...ctx.headers };
  for (const [name, h] of Object.entries((response.headers ?? {}) as Json)) {
    const header = p.deref<Json>(h as Json);
    const lower = name.toLowerCase();
    if (header.required === true && headers[lower] === undefined && header.example !== undefined)
      headers[lower] = String(header.example);
  }
  if (mediaTypes.length === 0) {
    if (prefs.example !== undefined) throw unknownExample(op, prefs.example, status, []);
    headers["preference-applied"] = applied.join(", ");
    return new Answer(status, headers, null);
  }
  const mediaType = negotiate(mediaTypes, ctx.accept);
  const media = content[mediaType] as Json;
  const schemaRef = `${at}/content/${pointerSegment(mediaType)}/schema`;

  let body: unknown;
  let found = false;
  if (prefs.dynamic === true) {
    applied.push("dynamic=true");
    const generated = ctx.generateBody
      ? await Promise.resolve()
          .then(() =>
            ctx.generateBody?.({ operationId: op.operationId, status, mediaType, schemaRef, seed: ctx.seed }),
          )
          .catch(() => undefined)
      : undefined;
    if (generated !== undefined) {
      body = generated;
      found = true;
    } else {
      applied.pop();
      headers[FALLBACK_HEADER] = ctx.generateBody?.unavailable
        ? `dynamic=true: ${ctx.generateBody.unavailable}; served the contract's example`
        : ctx.generateBody
          ? "dynamic=true: no contract-valid body could be generated; served the contract's example"
          : "dynamic=true needs the Node host (Prism's generator); served the contract's example";
    }
  }
  if (!found) {
    const named = namedExamples(p, media);
    if (prefs.example !== undefined) {
      const ex = named.get(prefs.example);
      if (ex === undefined) throw unknownExample(op, prefs.example, status, [...named.keys()]);
      body = ex;
      applied.push(`example=${prefs.example}`);
    } else if (named.size > 0) {
      body = named.values().next().value;
    } else if (media.example !== undefined) {
      body = media.example;
    } else if (ctx.generateBody) {
      body = await ctx.generateBody({
        operationId: op.operationId,
        status,
        mediaType,
        schemaRef,
        seed: ctx.seed,
      });
    }
    if (body === undefined) body = sampleSchema(media.schema, 0, p);
  }
  body = withRequestUrl(body, ctx.path);
  const isText = mediaType.startsWith("text/") || mediaType === "application/json";
  headers["content-type"] = isText ? `${mediaType}; charset=utf-8` : mediaType;
  headers["preference-applied"] = applied.join(", ");
  const text = typeof body === "string" && mediaType !== "application/json" ? body : JSON.stringify(body);
  return new Answer(status, headers, text);
}

/** `code`, else the response that holds the named example, else the first documented 2xx. */
function pickStatus(p: Pointers, op: Operation, prefs: Preferences): number {
  if (prefs.code !== undefined) {
    if (!op.statuses.includes(prefs.code)) {
      throw preferError(
        `${op.operationId} does not document status ${prefs.code}; it documents ${op.statuses.join(", ")}`,
        { code: "PREFER_UNDOCUMENTED_STATUS", requested: prefs.code, documented: op.statuses },
      );
    }
    return prefs.code;
  }
  if (prefs.example !== undefined) {
    const name = prefs.example;
    const holder = op.statuses.find((s) =>
      Object.values((responseAt(p, op, s).response.content ?? {}) as Json).some((m) =>
        namedExamples(p, m as Json).has(name),
      ),
    );
    if (holder === undefined) throw unknownExample(op, name, null, allExampleNames(p, op));
    return holder;
  }
  return op.statuses.find((s) => s >= 200 && s < 300) ?? (op.statuses[0] as number);
}

function responseAt(p: Pointers, op: Operation, status: number): { response: Json; at: string } {
  let at = contractPointer("paths", op.path, op.method.toLowerCase(), "responses", String(status));
  let node = p.resolvePointer(at) as Json;
  while (typeof node.$ref === "string") {
    at = node.$ref;
    node = p.resolvePointer(at) as Json;
  }
  return { response: node, at };
}

function namedExamples(p: Pointers, media: Json): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, ex] of Object.entries((media.examples ?? {}) as Json)) {
    const value = p.deref<Json>(ex as Json).value;
    if (value !== undefined) out.set(name, value);
  }
  return out;
}

function allExampleNames(p: Pointers, op: Operation): string[] {
  const names: string[] = [];
  for (const s of op.statuses) {
    for (const m of Object.values((responseAt(p, op, s).response.content ?? {}) as Json))
      for (const n of namedExamples(p, m as Json).keys()) names.push(`${n} (${s})`);
  }
  return names;
}

function unknownExample(op: Operation, name: string, status: number | null, known: string[]): ApiError {
  const where = status === null ? "" : ` for status ${status}`;
  const offer = known.length > 0 ? `; it has ${known.join(", ")}` : "; it has no named examples there";
  return preferError(`${op.operationId} has no example named "${name}"${where}${offer}`, {
    code: "PREFER_UNKNOWN_EXAMPLE",
    example: name,
    ...(status === null ? {} : { status }),
    examples: known,
  });
}

function preferError(message: string, data: Record<string, unknown>): ApiError {
  return new ApiError(422, message, data);
}

/** The first declared media type the Accept header admits (the first declared one without a match). */
function negotiate(mediaTypes: string[], accept: string | null): string {
  const first = mediaTypes[0] as string;
  if (!accept) return first;
  const ranges = accept
    .split(",")
    .map((r) => r.split(";")[0]?.trim().toLowerCase() ?? "")
    .filter((r) => r !== "");
  for (const range of ranges) {
    if (range === "*/*") return first;
    const hit = mediaTypes.find(
      (m) => m === range || (range.endsWith("/*") && m.startsWith(range.slice(0, -1))),
    );
    if (hit) return hit;
  }
  return first;
}

/** Error envelopes in the contract's examples carry a sample `url`; the answer names the real path. */
function withRequestUrl(body: unknown, path: string): unknown {
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const b = body as Json;
    if (b.error === true && typeof b.url === "string") return { ...b, url: path };
  }
  return body;
}

/**
 * A minimal, deterministic body from a schema, for a documented response with neither an example nor a
 * host generator (the contract has examples everywhere today; this keeps `code=` working if one is added
 * without). It follows `$ref`, prefers `const`, examples, defaults and enums, and fills required members.
 */
export function sampleSchema(schema: unknown, depth: number, p: Pointers): unknown {
  const s = p.deref<Json>((schema ?? {}) as Json);
  if (depth > 12) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const choice = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (Array.isArray(choice) && choice.length > 0) return sampleSchema(choice[0], depth + 1, p);
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part) => sampleSchema(part, depth + 1, p) as object));
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== "null") ?? "null") : s.type;
  switch (type) {
    case "object": {
      const out: Json = {};
      const props = (s.properties ?? {}) as Json;
      for (const name of (s.required ?? []) as string[]) out[name] = sampleSchema(props[name], depth + 1, p);
      return out;
    }
    case "array": {
      const min = typeof s.minItems === "number" ? s.minItems : 0;
      return Array.from({ length: min }, () => sampleSchema(s.items, depth + 1, p));
    }
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      return sampleString(s);
    default:
      return null;
  }
}

function sampleString(s: Json): string {
  switch (s.format) {
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    case "date-time":
      return "2026-11-21T12:00:00.000Z";
    case "date":
      return "2026-11-21";
    case "uri":
      return "https://example.invalid/";
    case "email":
      return "user@example.invalid";
    default:
      return "x".repeat(typeof s.minLength === "number" ? s.minLength : 0);
  }
}
