/**
 * Keeping V8's code for the bundle (scripts/serve-entry.mjs, which `npm start` and the `serve` command run):
 * on a start without a usable cache the entry offers a way to save one, and this takes it once start-up and
 * the first requests have run, so that the code of every function they called is in it. Run from the sources
 * (tsx), nothing offers it and this does nothing.
 */
const SAVE = Symbol.for("audience-research-sim.saveCodeCache");

/** Saves the code cache if the entry offered to (once; later calls do nothing). */
export function saveCodeCache(): void {
  const save = (globalThis as Record<symbol, unknown>)[SAVE];
  if (typeof save === "function") save();
}
