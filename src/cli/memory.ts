/**
 * How the served process keeps its resident memory down under load without paying much CPU for it.
 *
 * Once the server listens, the old generation may grow only 10% past what survived the last full
 * collection before the next one. V8's own factor (up to 4x for a small heap) let the garbage of a busy
 * simulator pile up to about 125 MB of resident memory; its memory saver mode kept about 100 MB but cost
 * about 6% more CPU a mixed request than this (`npm run bench`). The factor only takes hold at a full
 * collection: until one, the limit V8 set while the world was built stands, and a burst of large answers
 * filled it for good (130 MB). So one is made when this is called, a quarter second after the server listens
 * or, on a start that keeps V8's code, after its first answer (src/cli/listen.ts; 10 ms for the default
 * world): past the first requests a client sends as it starts, which would otherwise wait for it.
 * Not a command-line flag because there it also applies while the world is built: start-up took 20 ms
 * longer.
 * A node flag naming either setting (`node --heap-growing-percent=50 dist/main.cjs`) is left to rule.
 *
 * What this costs depends on how much a request leaves to the old generation: a full collection comes
 * each time a tenth of what survived the last one has been promoted. While the request journal kept an
 * object and fresh strings per request (about 230 bytes promoted an auth/me), that was one every 30,000
 * requests and about a fifth of the CPU of an auth/me; with its entries in columns (about 30 bytes), about
 * one every 100,000 (`--trace-gc` under load).
 */

/**
 * Called once, after the server listens; does nothing when a node flag names either setting. node:v8 is
 * loaded here, not before the first answer: it brings Node's heap snapshot streams with it.
 */
export async function tightenHeap(): Promise<void> {
  const asked = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  if (asked.includes("heap-growing-percent") || asked.includes("memory-saver-mode")) return;
  const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([
    import("node:v8"),
    import("node:vm"),
  ]);
  setFlagsFromString("--heap-growing-percent=10");
  // `gc` exists only in a context made while --expose-gc is set; the flag is taken back at once.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  setFlagsFromString("--no-expose-gc");
  gc();
}
