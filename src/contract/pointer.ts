/** JSON pointers (RFC 6901): into the contract (`#/paths/~1auth~1me/get`), into a snapshot, a document. */

/** One segment as a pointer writes it: `~` as `~0`, `/` as `~1`. */
export function pointerSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** One segment of a pointer as it names a key. */
export function unescapeSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** A local reference into the contract from its keys: `#/paths/~1auth~1me/get`. */
export function contractPointer(...segments: string[]): string {
  return `#/${segments.map(pointerSegment).join("/")}`;
}

/**
 * Something wrong at one place of a document users author (a scenario, a snapshot, a record): a JSON pointer
 * into it, and what. Such a document is refused whole, with every problem found.
 */
export interface PointerProblem {
  path: string;
  message: string;
}
