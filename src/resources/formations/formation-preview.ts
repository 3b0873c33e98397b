/**
 * Formation preview (description, "Audiences: Formations", preview rules, and "Events"): proposes a
 * hypothesis for an Audience and persists nothing.
 *
 * Order of checks: the Audience must be viewable (404 `Audience not found`), then `Accept` must allow
 * `application/x-ndjson` or `application/json` (406, before the body is read and before any generation),
 * then the body (413 over its x-max-body-bytes, 400 `Invalid JSON body`, 400 `Invalid preview input`).
 *
 * Negotiation uses the `negotiator` package: quality weights, wildcards and media parameters are
 * respected; the stream is offered first, so no `Accept` (or an empty one, or `*` / `*` with no other
 * preference) gets the stream.
 *
 * The proposal is the deterministic stand-in for the model: with a prior hypothesis, its buckets are kept
 * and their definitions refined with how many members fit each today; otherwise the Audience is split by
 * the filter attribute that `userInput` names, else by its most varied one (ties broken by a hash of the
 * request), else into three canonical buying roles. Every proposal is checked against the creation rules
 * before it is returned; one that breaks them is a failed proposal.
 *
 * Simulator decision: a `userInput` containing the marker `[[fail]]` makes the proposal fail, to show the
 * failure path: 500 `Failed to propose subgroups` in JSON mode, an in-band `error` event followed by `done`
 * (HTTP 200) in stream mode.
 *
 * The stream is pull-based: each line is produced when the client reads it, so the proposal is made only
 * when the client asks for the third line, and a client that disconnects (the request's signal aborts)
 * stops the stream and the generation without an error.
 */

import Negotiator from "negotiator";
import { LIMITS } from "../../contract/limits.ts";
import type { components } from "../../contract/types.gen.ts";
import type { ValidationIssue } from "../../contract/validate.ts";
import { ApiError, badRequest } from "../../core/errors.ts";
import { type LineSource, LineStream } from "../../core/request/exchange.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { AudienceRecord, FormationHypothesisRecord, MindRecord, State } from "../../core/world/state.ts";
import { FILTER_ATTRIBUTE_KEYS, type FilterAttributeKey } from "../../generators/index.ts";
import { hashSeed } from "../../generators/prng.ts";
import { viewable } from "../access.ts";
import { slug } from "../minds.ts";
import { classify } from "./formation-classifier.ts";
import { isValidHypothesis, normalizeHypothesis, RESERVED_SUBGROUP_IDS } from "./formation-view.ts";
import { MAX_FORMATION_MEMBERS } from "./formations.ts";

export const NDJSON = "application/x-ndjson";
export const JSON_MEDIA = "application/json";
/** Offered in this order: with no preference the stream wins. */
const OFFERED = [`${NDJSON}; charset=utf-8`, `${JSON_MEDIA}; charset=utf-8`] as const;
export const NOT_ACCEPTABLE = `Not Acceptable: use ${JSON_MEDIA} or ${NDJSON}`;
export const INVALID_PREVIEW_INPUT = "Invalid preview input";
export const PROPOSAL_FAILED = "Failed to propose subgroups";
/** The documented trigger of a failed proposal. */
export const FAIL_MARKER = "[[fail]]";
/** `softWarn` from this many members (contract `x-soft-warn-from`). */
export const SOFT_WARN_FROM = LIMITS.previewSoftWarnFrom;
export const MAX_SUBGROUPS = LIMITS.subgroupsMax;
const DEFAULT_REQUEST = "Split the audience into meaningful subgroups";

export type PreviewMode = "ndjson" | "json";

/** The representation `Accept` asks for, or null when it allows neither. */
export function negotiatePreview(accept: string | null): PreviewMode | null {
  const headers = accept === null || accept.trim() === "" ? {} : { accept };
  const best = new Negotiator({ headers }).mediaType(OFFERED);
  if (best === undefined) return null;
  return best.startsWith(NDJSON) ? "ndjson" : "json";
}

function previewMode(ctx: RequestContext): PreviewMode {
  const mode = negotiatePreview(ctx.headers.get("accept"));
  if (mode === null) throw new ApiError(406, NOT_ACCEPTABLE, undefined, { vary: "Accept" });
  return mode;
}

// ------------------------------------------------------------------------------------------ proposal

interface PreviewInput {
  userInput: string | null;
  prior: FormationHypothesisRecord | null;
}

/** How the proposal names each attribute, and the words in `userInput` that ask for it. */
const ATTRIBUTES: Readonly<Record<FilterAttributeKey, { noun: string; words: readonly string[] }>> = {
  perspective: {
    noun: "buying role",
    words: ["perspective", "buying role", "buyer role", "purchase role", "buying roles", "stance"],
  },
  industry: { noun: "industry", words: ["industry", "industries", "sector", "sectors", "vertical"] },
  role: { noun: "role", words: ["role", "roles", "job", "jobs", "function", "department", "title"] },
  country: { noun: "country", words: ["country", "countries", "region", "geography", "location"] },
  companySize: {
    noun: "company size",
    words: ["company size", "employer size", "headcount", "size", "employees"],
  },
  technology: { noun: "technology", words: ["technology", "technologies", "tech stack", "tools", "stack"] },
  businessModel: { noun: "business model", words: ["business model", "business models", "b2b", "b2c"] },
};

/** Every (phrase, attribute), longest phrase first, so `buying role` wins over `role`. */
const PHRASES = FILTER_ATTRIBUTE_KEYS.flatMap((key) => ATTRIBUTES[key].words.map((w) => ({ w, key }))).sort(
  (a, b) => b.w.length - a.w.length,
);

function namedAttribute(userInput: string | null): FilterAttributeKey | null {
  if (userInput === null) return null;
  const text = ` ${userInput.toLowerCase().replace(/[^a-z0-9]+/g, " ")} `;
  return PHRASES.find((p) => text.includes(` ${p.w} `))?.key ?? null;
}

function roster(state: State, audience: AudienceRecord): MindRecord[] {
  return audience.memberIds.flatMap((id) => state.minds.get(id) ?? []);
}

function valueCounts(members: readonly MindRecord[], key: FilterAttributeKey) {
  const counts = new Map<string, number>();
  let missing = 0;
  for (const m of members) {
    const v = m.attributes[key]?.trim();
    if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
    else missing++;
  }
  const values = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return { values, missing };
}

/** Adds buckets with ids and labels unique after trimming and no reserved id. */
class Buckets {
  readonly list: { id: string; label: string; definition: string }[] = [];
  private ids = new Set<string>();
  private labels = new Set<string>();

  add(label: string, definition: string): void {
    let id = slug(label);
    for (let n = 2; this.ids.has(id) || RESERVED_SUBGROUP_IDS.has(id); n++) id = `${slug(label)}-${n}`;
    let shown = label;
    for (let n = 2; this.labels.has(shown); n++) shown = `${label} (${n})`;
    this.ids.add(id);
    this.labels.add(shown);
    this.list.push({ id, label: shown, definition });
  }
}

function byAttribute(
  key: FilterAttributeKey,
  members: readonly MindRecord[],
  intent: string,
): FormationHypothesisRecord {
  const { noun } = ATTRIBUTES[key];
  const { values, missing } = valueCounts(members, key);
  const room = MAX_SUBGROUPS - (missing > 0 ? 1 : 0);
  const named = values.length > room ? values.slice(0, room - 1) : values;
  const b = new Buckets();
  for (const [value] of named) b.add(value, `Members whose ${noun} is ${value}`);
  if (named.length < values.length)
    b.add(`Any other ${noun}`, `Members whose ${noun} is none of the values named above`);
  if (missing > 0) b.add("Not stated", `Members whose record does not state a ${noun}`);
  return { intent, subgroups: b.list };
}

/** The canonical split when no attribute varies: the buying-role words generated personas carry. */
function canonical(intent: string): FormationHypothesisRecord {
  const b = new Buckets();
  b.add("Decision makers", "Decision maker or budget holder who signs off the purchase");
  b.add("Evaluators and champions", "Evaluator, champion or influencer shaping the shortlist");
  b.add("End users and skeptics", "End user, skeptic or gatekeeper living with the outcome");
  return { intent, subgroups: b.list };
}

const FIT_NOTE = / \(about \d+ of \d+ members fit today\)$/;

/**
 * Keeps the prior buckets; each definition says how many of today's members fit it. The count depends on
 * the buckets and the members only, so refining a refinement gives the same note instead of a new one.
 */
function refine(prior: FormationHypothesisRecord, members: readonly MindRecord[], audienceId: string) {
  const base = normalizeHypothesis(prior);
  const stripped = base.subgroups.map((s) => ({ ...s, definition: s.definition.replace(FIT_NOTE, "") }));
  const hypothesis = { intent: base.intent, subgroups: stripped };
  if (members.length === 0) return hypothesis;
  const sorted = classify(
    members,
    hypothesis,
    `preview:${audienceId}:${hashSeed(0, JSON.stringify(stripped))}`,
  );
  const fits = new Map(sorted.map((g) => [g.id, g.members.length]));
  return {
    intent: hypothesis.intent,
    subgroups: stripped.map((s) => ({
      ...s,
      definition: `${s.definition} (about ${fits.get(s.id) ?? 0} of ${members.length} members fit today)`,
    })),
  };
}

/** The proposal for a request, or null when it fails (the marker, or a proposal breaking the rules). */
export function propose(
  state: State,
  audience: AudienceRecord,
  input: PreviewInput,
): FormationHypothesisRecord | null {
  if (input.userInput?.includes(FAIL_MARKER)) return null;
  const seed = hashSeed(0x9e37, JSON.stringify([audience.id, input.userInput, input.prior]));
  const members = roster(state, audience);
  let proposal: FormationHypothesisRecord;
  if (input.prior) {
    proposal = refine(input.prior, members, audience.id);
  } else {
    const varied = FILTER_ATTRIBUTE_KEYS.map((key) => ({ key, n: valueCounts(members, key).values.length }))
      .filter((c) => c.n >= 2)
      .sort((a, b) => b.n - a.n || hashSeed(seed, a.key) - hashSeed(seed, b.key));
    const asked = namedAttribute(input.userInput);
    const key = varied.find((c) => c.key === asked)?.key ?? varied[0]?.key;
    const intent =
      input.userInput ?? (key ? `${DEFAULT_REQUEST} by ${ATTRIBUTES[key].noun}` : DEFAULT_REQUEST);
    proposal = key ? byAttribute(key, members, intent) : canonical(intent);
  }
  return isValidHypothesis(proposal) ? normalizeHypothesis(proposal) : null;
}

// ------------------------------------------------------------------------------------------- serving

/** The body's fields, already checked by the contract's schema; reserved ids after trimming refused here. */
function previewInput(ctx: RequestContext): PreviewInput {
  const body = (ctx.hasBody ? ctx.body : {}) as { userInput?: string; priorHypothesis?: unknown };
  const prior = body.priorHypothesis ?? null;
  if (prior !== null && !isValidHypothesis(prior)) throw badRequest(INVALID_PREVIEW_INPUT);
  const text = body.userInput?.trim() ?? "";
  return { userInput: text === "" ? null : text, prior };
}

/** One line of the NDJSON stream, as the contract defines it. */
type PreviewEvent = components["schemas"]["PreviewEvent"];
type Meta = Extract<PreviewEvent, { type: "meta" }>["data"];

/** The stream's lines, made one at a time: the proposal only when the third line is asked for. */
function* previewEvents(
  meta: Meta,
  generate: () => FormationHypothesisRecord | null,
): Generator<PreviewEvent> {
  yield { type: "meta", data: meta };
  yield { type: "status", data: { phase: "hypothesizing" } };
  let proposal: FormationHypothesisRecord | null;
  try {
    proposal = generate();
  } catch {
    // A generation bug is a failed proposal once the stream has started: in band, never a broken stream.
    proposal = null;
  }
  yield proposal ? { type: "subgroups", data: proposal } : { type: "error", error: PROPOSAL_FAILED };
  yield { type: "done" };
}

/**
 * A pull-based NDJSON body: one line each time the reader asks. When `signal` aborts, or the reader stops,
 * nothing more is generated.
 */
export function ndjsonLines(events: Iterator<PreviewEvent>, signal: AbortSignal): LineSource {
  const encoder = new TextEncoder();
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    signal.removeEventListener("abort", finish);
    events.return?.();
  };
  if (signal.aborted) finish();
  else signal.addEventListener("abort", finish, { once: true });
  return {
    next() {
      if (finished) return null;
      const next = events.next();
      if (next.done) {
        finish();
        return null;
      }
      return encoder.encode(`${JSON.stringify(next.value)}\n`);
    },
    stop: finish,
  };
}

function previewFormation(
  ctx: RequestContext,
): LineStream | { status: number; body: unknown; headers: Record<string, string> } {
  const { audience } = viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
  const mode = previewMode(ctx);
  const input = previewInput(ctx);
  const memberCount = audience.memberIds.length;
  const meta: Meta = {
    memberCount,
    softWarn: memberCount >= SOFT_WARN_FROM,
    hardCapExceeded: memberCount > MAX_FORMATION_MEMBERS,
  };
  // The proposal depends on the members and the input only: the same preview again (a screen re-rendered)
  // is not worked out again until the state may have changed.
  const generate = () =>
    ctx.memo(`preview ${audience.id} ${JSON.stringify([input.userInput, input.prior])}`, () =>
      propose(ctx.state, audience, input),
    );
  if (mode === "json") {
    const hypothesis = generate();
    if (!hypothesis) throw new ApiError(500, PROPOSAL_FAILED, undefined, { vary: "Accept" });
    return {
      status: 200,
      body: { success: true, data: { ...meta, phase: "hypothesizing", hypothesis } },
      headers: { vary: "Accept" },
    };
  }
  return new LineStream(
    200,
    { "content-type": `${NDJSON}; charset=utf-8`, vary: "Accept" },
    ndjsonLines(previewEvents(meta, generate), ctx.request.signal),
  );
}

export const formationPreview: ResourceModule = {
  routes: {
    previewFormation: {
      pure: true,
      // Access, then negotiation: a 406 never depends on the body and comes before any generation.
      authorize: (ctx) => {
        viewable(ctx.state, ctx.params.audienceId ?? "", ctx.caller);
        previewMode(ctx);
      },
      invalidBody: (_issues: ValidationIssue[]) => badRequest(INVALID_PREVIEW_INPUT),
      handler: previewFormation,
    },
  },
};
