/**
 * Keeping V8's code for the bundle (scripts/serve-entry.cjs, which `npm start` and the `serve` command run):
 * on a start without a usable cache the entry offers a way to save one, and this takes it once start-up and
 * the first request have run, so that the code of every function they called is in it. Run from the
 * sources (tsx), nothing offers it and this does nothing.
 */
const SAVE = Symbol.for("audience-research-sim.saveCodeCache");

let saved = false;

/** Whether this process may save the code (it started without a cache this Node accepts). */
export function codeCacheOffered(): boolean {
  return typeof (globalThis as Record<symbol, unknown>)[SAVE] === "function";
}

/** Saves the code cache if the entry offered to; each save replaces the last, with what has run since. */
export function saveCodeCache(): void {
  const save = (globalThis as Record<symbol, unknown>)[SAVE];
  if (typeof save !== "function") return;
  save();
  saved = true;
}

/** Whether a save has been made (a process stopped before any still leaves one). */
export function codeCacheSaved(): boolean {
  return saved;
}
