/**
 * Reading a recalibrate body (research mode, selection mode, Go deeper) into a typed request, with the
 * description's two 400 messages; and telling an additive instruction from an adjustment.
 */

import { type ApiError, badRequest } from "../../core/errors.ts";
import type { ChartDatum, SourceLink } from "../../generators/index.ts";
import { normalise } from "./grounding.ts";
import type { SelectionEntry, SourcesInput } from "./records.ts";
import { MAX_DISTRIBUTIONS, MAX_LABELS, MAX_TOPIC_LENGTH, MAX_TOPICS, MESSAGES } from "./records.ts";

export interface ParsedRequest {
  instruction: string | null;
  sources: SourcesInput | null;
  requestedDistribution: string | null;
  query: string | null;
  distributions: SelectionEntry[] | null;
  deepen: { topics: string[] } | null;
}

export const invalidPayload = (): ApiError => badRequest(MESSAGES.invalidPayload);
export const invalidDistributions = (): ApiError => badRequest(MESSAGES.invalidDistributions);

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function field(body: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

/** A string field: absent, null and blank are null; another type is a payload error. */
export function optionalText(body: Record<string, unknown>, key: string): string | null {
  const v = field(body, key);
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalidPayload();
  const t = v.trim();
  return t === "" ? null : t;
}

export function httpUrl(v: unknown): string {
  if (typeof v !== "string") throw invalidPayload();
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    throw invalidPayload();
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidPayload();
  return url.href;
}

export function parseLink(v: unknown): SourceLink {
  if (typeof v === "string") {
    const url = httpUrl(v);
    return { url, title: new URL(url).hostname };
  }
  if (!isObject(v)) throw invalidPayload();
  const url = httpUrl(field(v, "url"));
  const title = optionalText(v, "title");
  return { url, title: title ?? new URL(url).hostname };
}

export function parseFile(v: unknown): SourcesInput["files"][number] {
  if (!isObject(v)) throw invalidPayload();
  const name = optionalText(v, "name");
  if (name === null) throw invalidPayload();
  const rawUrl = field(v, "url");
  const url = rawUrl === undefined || rawUrl === null ? null : httpUrl(rawUrl);
  const content = field(v, "content");
  if (content !== undefined && content !== null && typeof content !== "string") throw invalidPayload();
  if (url === null && typeof content !== "string") throw invalidPayload();
  const contentType = optionalText(v, "contentType") ?? "application/octet-stream";
  const declared = field(v, "sizeBytes");
  if (
    declared !== undefined &&
    declared !== null &&
    !(Number.isInteger(declared) && (declared as number) >= 0)
  )
    throw invalidPayload();
  const sizeBytes =
    typeof declared === "number"
      ? declared
      : typeof content === "string"
        ? new TextEncoder().encode(content).byteLength
        : 0;
  return { name, url, sizeBytes, contentType };
}

export function parseSources(v: unknown): SourcesInput | null {
  if (v === undefined || v === null) return null;
  const out: SourcesInput = { links: [], files: [], keywords: [] };
  if (Array.isArray(v)) {
    for (const item of v) {
      if (isObject(item) && Object.hasOwn(item, "name")) out.files.push(parseFile(item));
      else out.links.push(parseLink(item));
    }
    return out;
  }
  if (!isObject(v)) throw invalidPayload();
  const list = (key: string): unknown[] => {
    const x = field(v, key);
    if (x === undefined || x === null) return [];
    if (!Array.isArray(x)) throw invalidPayload();
    return x;
  };
  out.links = list("links").map(parseLink);
  out.files = list("files").map(parseFile);
  out.keywords = list("keywords").map((k) => {
    if (typeof k !== "string" || k.trim() === "") throw invalidPayload();
    return k.trim();
  });
  return out;
}

export function parseDistributions(v: unknown): SelectionEntry[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_DISTRIBUTIONS) throw invalidDistributions();
  const seen = new Set<string>();
  return v.map((entry): SelectionEntry => {
    if (!isObject(entry)) throw invalidDistributions();
    const dimension = field(entry, "dimension");
    const data = field(entry, "distribution");
    if (typeof dimension !== "string" || dimension.trim() === "") throw invalidDistributions();
    const key = normalise(dimension);
    if (key === "" || seen.has(key)) throw invalidDistributions();
    seen.add(key);
    if (!Array.isArray(data) || data.length === 0 || data.length > MAX_LABELS) throw invalidDistributions();
    const labels = new Set<string>();
    let sum = 0;
    const distribution = data.map((d): ChartDatum => {
      if (!isObject(d)) throw invalidDistributions();
      const label = field(d, "label");
      const share = field(d, "share");
      if (typeof label !== "string" || label.trim() === "" || labels.has(label.trim()))
        throw invalidDistributions();
      if (typeof share !== "number" || !Number.isFinite(share) || share < 0 || share > 1)
        throw invalidDistributions();
      labels.add(label.trim());
      sum += share;
      return { label: label.trim(), share };
    });
    if (Math.abs(sum - 1) > 0.01) throw invalidDistributions();
    return { dimension: dimension.trim(), distribution };
  });
}

export function parseDeepen(v: unknown): { topics: string[] } | null {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw invalidPayload();
  const raw = field(v, "topics");
  if (raw === undefined || raw === null) return { topics: [] };
  if (!Array.isArray(raw) || raw.length > MAX_TOPICS) throw invalidPayload();
  const topics: string[] = [];
  const seen = new Set<string>();
  for (const t of raw) {
    if (typeof t !== "string") throw invalidPayload();
    const topic = t.trim();
    if (topic === "" || topic.length > MAX_TOPIC_LENGTH) throw invalidPayload();
    if (seen.has(topic.toLowerCase())) continue;
    seen.add(topic.toLowerCase());
    topics.push(topic);
  }
  return { topics };
}

/** Reads a recalibrate body, or throws the description's 400. Pure. */
export function parseRecalibrateBody(body: unknown): ParsedRequest {
  if (!isObject(body)) throw invalidPayload();
  const given = (key: string) => field(body, key) !== undefined && field(body, key) !== null;
  if (given("deepen") && given("distributions")) throw invalidPayload();
  const parsed: ParsedRequest = {
    instruction: optionalText(body, "instruction"),
    sources: parseSources(field(body, "sources")),
    requestedDistribution: optionalText(body, "requestedDistribution"),
    query: optionalText(body, "query"),
    deepen: parseDeepen(field(body, "deepen")),
    distributions: parseDistributions(field(body, "distributions")),
  };
  return parsed;
}

export const ADDITIVE =
  /\b(add|adding|more|grow|growing|include|including|expand|expanding|extend|increase|recruit)\b/i;
export const COUNT_AFTER = /\b(?:add|include|recruit|grow by|expand by|increase by)\s+([1-9]\d{0,6})\b/i;
export const COUNT_BEFORE = /\b([1-9]\d{0,6})\s+(?:more|new|additional|extra)\b/i;

/** Pure: an instruction is additive (with an explicit count or not) or an adjustment. */
export function classifyInstruction(text: string): { kind: "additive" | "adjustment"; count: number | null } {
  if (!ADDITIVE.test(text)) return { kind: "adjustment", count: null };
  const m = COUNT_AFTER.exec(text) ?? COUNT_BEFORE.exec(text);
  return { kind: "additive", count: m?.[1] ? Number(m[1]) : null };
}
