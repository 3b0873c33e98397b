/**
 * A request's URL, parsed once per text: a client asks for the same few URLs again and again, and parsing
 * each (WHATWG URL) was about a twentieth of what an auth/me cost the core. The URLs handed out are shared
 * by every request that sent the same text, and by every world of the process: read them, never change
 * them (nothing in the simulator sets a URL's parts or its searchParams).
 */

import { KeptMap } from "./kept-map.ts";

/** URLs kept, for every world of the process. */
const kept = new KeptMap<string, URL | null>(256);

/** `URL.parse(text)`, kept: null when the text is no URL. */
export function parsedUrl(text: string): URL | null {
  const known = kept.get(text);
  return known !== undefined ? known : kept.keep(text, URL.parse(text));
}

/**
 * Each URL's path, read once: every read of `pathname` makes a new string, and every map the path is then
 * looked up in (the router's, the journal's) hashed it again. The same URL object gives the same string.
 */
const paths = new WeakMap<URL, string>();

/** `url.pathname`, the same string for the same URL object. */
export function keptPath(url: URL): string {
  let path = paths.get(url);
  if (path === undefined) {
    path = url.pathname;
    paths.set(url, path);
  }
  return path;
}
