/**
 * What the sentence index says of one sentence of openapi.json: the rules and deliberate faults that judge
 * it, or why nothing can. Entries are keyed by the sentence's words, so a sentence the contract repeats
 * (a 404's "The Audience does not exist or is not visible to the caller.") is judged once, everywhere.
 */
import type { RuleId } from "../lib/description/rules.ts";

/** Why a sentence has no check, tagged by `code` (the reasons a reader can weigh). */
export type Reason =
  /** It names an operation, tag, server, parameter, body or answer, and states no rule. */
  | { code: "label" }
  /** An example's message: the description says `statusMessage` wording may change. */
  | { code: "wording" }
  /** It grants the server a freedom (unknown keys, "may"): no answer can break it. */
  | { code: "permits"; why: string }
  /** It concerns what the description leaves unshown (a record, a field's shape). */
  | { code: "unshown"; why: string }
  /** Only the server's internals see it (storage, email, models, transactions, background housekeeping). */
  | { code: "internal"; why: string }
  /** The server's own failure: no request may cause it, and the kit reports any 5xx as a violation. */
  | { code: "failure"; why: string }
  /** Its precondition is made by nothing a client sends (research finding no data, staff, legacy rows). */
  | { code: "unreachable"; why: string }
  /** It speaks of this document itself. */
  | { code: "document" };

export interface Judged {
  code: "judged";
  /** The catalogue rules (lib/description/rules.ts) whose checks judge the sentence. */
  rules: readonly RuleId[];
  /**
   * Hand-written self-test faults (by name) that break the sentence; each must be reported by a check of
   * `rules`. Empty for a message the cases state (their faults are made from them: `stated`).
   */
  faults: readonly string[];
  /** Judged against the simulator only, and why a deployment cannot show it. */
  simulatorOnly?: string;
}

export type Entry = Judged | Reason;

export const LABEL: Reason = { code: "label" };

/** Sentences that only name something (an operation, a tag): each a `LABEL`. */
export const labels = (...sentences: string[]): Record<string, Entry> =>
  Object.fromEntries(sentences.map((s) => [s, LABEL]));
export const WORDING: Reason = { code: "wording" };
export const DOCUMENT: Reason = { code: "document" };

/**
 * A message the description states word for word (the cases check it, and the faults made from them change
 * it): judged by the cases of `rules`, with no hand-written fault of its own.
 */
export function stated(rules: RuleId | readonly RuleId[]): Judged {
  return { code: "judged", rules: typeof rules === "string" ? [rules] : rules, faults: [] };
}

/** Judged by `rules`, broken by `faults`. */
export function by(rules: RuleId | readonly RuleId[], ...faults: string[]): Judged {
  return { code: "judged", rules: typeof rules === "string" ? [rules] : rules, faults };
}

export const permits = (why: string): Reason => ({ code: "permits", why });
export const unshown = (why: string): Reason => ({ code: "unshown", why });
export const internal = (why: string): Reason => ({ code: "internal", why });
export const failure = (why: string): Reason => ({ code: "failure", why });
export const unreachable = (why: string): Reason => ({ code: "unreachable", why });

/** A 5xx the contract documents: the server failed. */
export const SERVER_FAILURE = failure(
  "a 5xx is the server's own failure; no request may cause it, so the kit reports every 5xx",
);

// Hand-written faults that break sentences of more than one part of the contract.
export const HIDDEN = "403 instead of 404 for an Audience the caller cannot view";
export const UNKNOWN = "unknown ID on a read answered 200 instead of 404";
export const MESSAGES = "a malformed path ID answered with another message than x-error-messages names";
