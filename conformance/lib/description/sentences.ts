/**
 * The sentences of the contract: every `description` and `summary` of openapi.json cut into sentences, and
 * every `x-` extension by its name. They carry the description's rules that no schema states, so the kit's
 * sentence index (conformance/index) must say, for each one, what judges it or why nothing can.
 */
import { pointerSegment } from "../../../src/contract/pointer.ts";

export interface Sentence {
  /** Where it stands: the JSON pointer of its string (or of the extension) in openapi.json. */
  pointer: string;
  /** The sentence, white space folded; for an extension, its name (`x-max-body-bytes`). */
  text: string;
}

/**
 * A sentence ends at `.`, `!` or `?` before white space and a capital, a backtick or a digit; paragraphs
 * and list items end one too. A colon does not ("Rules: …" is one sentence), nor "e.g." or "i.e.".
 */
export function splitSentences(prose: string): string[] {
  return prose
    .split(/\n\s*\n|\n(?=\s*- )/)
    .flatMap((block) => block.replace(/^\s*- /, "").split(/(?<![a-z]\.[a-z]\.)(?<=[.!?])\s+(?=[A-Z`\d(])/))
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s !== "");
}

export function contractSentences(doc: unknown): Sentence[] {
  const out: Sentence[] = [];
  const walk = (value: unknown, pointer: string): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        walk(v, `${pointer}/${i}`);
      });
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, v] of Object.entries(value)) {
      const at = `${pointer}/${pointerSegment(key)}`;
      if (key.startsWith("x-")) out.push({ pointer: at, text: key });
      else if ((key === "description" || key === "summary") && typeof v === "string")
        for (const text of splitSentences(v)) out.push({ pointer: at, text });
      else walk(v, at);
    }
  };
  walk(doc, "");
  return out;
}
