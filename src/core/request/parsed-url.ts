/**
 * A request's URL, parsed once per text: a client asks for the same few URLs again and again, and parsing
 * each (WHATWG URL) was about a twentieth of what an auth/me cost the core. The URLs handed out are shared
 * by every request that sent the same text, and by every world of the process: read them, never change
 * them (nothing in the simulator sets a URL's parts or its searchParams).
 */

/** URLs kept; past it the cache starts over, so that random URLs cannot grow it. */
const KEPT_URLS = 256;
const kept = new Map<string, URL | null>();

/** `URL.parse(text)`, kept: null when the text is no URL. */
export function parsedUrl(text: string): URL | null {
  const known = kept.get(text);
  if (known !== undefined) return known;
  if (kept.size >= KEPT_URLS) kept.clear();
  const url = URL.parse(text);
  kept.set(text, url);
  return url;
}
