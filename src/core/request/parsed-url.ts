/**
 * A request's URL, parsed once per text: a client asks for the same few URLs again and again, and parsing
 * each (WHATWG URL) was about a twentieth of what an auth/me cost the core. The URLs handed out are shared
 * by every request that sent the same text, and by every world of the process: read them, never change
 * them (nothing in the simulator sets a URL's parts or its searchParams).
 */

import { KeptMap } from "./kept-map.ts";

/**
 * A URL and its path, read once: every read of `pathname` makes a new string, and every map the path is
 * then looked up in (the router's, the journal's) hashed it again.
 */
export interface ParsedUrl {
  readonly url: URL;
  readonly path: string;
}

/** URLs kept, for every world of the process. */
const kept = new KeptMap<string, ParsedUrl | null>(256);

/** `URL.parse(text)` and its path, kept: null when the text is no URL. */
export function parsedUrl(text: string): ParsedUrl | null {
  const known = kept.get(text);
  if (known !== undefined) return known;
  const url = URL.parse(text);
  return kept.keep(text, url === null ? null : { url, path: url.pathname });
}
