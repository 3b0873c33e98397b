/**
 * Text for the kit's reports in markup: JUnit XML and the self-contained HTML pages. The kit's own (it
 * shares only the description with the simulator it checks).
 */
const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/**
 * Text as XML 1.0 (and HTML) carries it in element content and double-quoted attributes: escaped, and
 * without the control characters XML has no place for.
 */
export function escapeMarkup(s: string): string {
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x20 && ch !== "\t" && ch !== "\n" && ch !== "\r") continue;
    out += ESCAPES[ch] ?? ch;
  }
  return out;
}
