/**
 * The sentence index: every sentence of openapi.json (its descriptions, summaries and `x-` extensions)
 * with the rules and deliberate faults that judge it, or the reason nothing can. `sentences.test.ts`
 * (self-test) fails on a sentence without an entry, an entry without its sentence, and a fault that does
 * not exist or is reported by a check of other rules; the coverage report counts sentences by it.
 */
import { contractSentences, type Sentence } from "../lib/description/sentences.ts";
import { AUDIENCE_SENTENCES } from "./audiences.ts";
import { CHECKOUT_SENTENCES } from "./checkout.ts";
import { DOCUMENT_SENTENCES } from "./document.ts";
import type { Entry } from "./entry.ts";
import { FORMATION_SENTENCES } from "./formations.ts";
import { IDENTITY } from "./identity.ts";
import { PROGRESS_SENTENCES } from "./progress.ts";

export type { Entry, Judged, Reason } from "./entry.ts";

/** The parts of the index, by what they cover; a sentence stands in one part only. */
export const INDEX_PARTS: Record<string, Record<string, Entry>> = {
  document: DOCUMENT_SENTENCES,
  identity: IDENTITY,
  audiences: AUDIENCE_SENTENCES,
  formations: FORMATION_SENTENCES,
  progress: PROGRESS_SENTENCES,
  checkout: CHECKOUT_SENTENCES,
};

export const SENTENCE_INDEX: ReadonlyMap<string, Entry> = new Map(
  Object.values(INDEX_PARTS).flatMap((part) => Object.entries(part)),
);

/**
 * The index with, for each judged sentence, the checks that judge its rules (`checks`: the kit's, handed in,
 * since the index is data the checks are built beside): what the coverage report shows per sentence.
 */
export function sentenceIndexWith(
  checks: readonly { name: string; rules: readonly string[] }[],
): ReadonlyMap<string, Entry & { checks: string[] }> {
  return new Map(
    [...SENTENCE_INDEX].map(([text, e]) => {
      const rules = e.code === "judged" ? e.rules : [];
      const by = checks.filter((c) => c.rules.some((r) => (rules as readonly string[]).includes(r)));
      return [text, { ...e, checks: by.map((c) => c.name) }];
    }),
  );
}

export interface IndexedSentence extends Sentence {
  entry: Entry | undefined;
}

/** Every sentence of `doc`, with its entry (undefined where the index has none). */
export function indexSentences(doc: unknown): IndexedSentence[] {
  return contractSentences(doc).map((s) => ({ ...s, entry: SENTENCE_INDEX.get(s.text) }));
}
