/**
 * What the Node host adds around the simulator core: the docs page (src/node/docs.ts) and CORS
 * (src/node/cors.ts). `npm start` serves `nodeHandler(sim, …)`; tests use it to get the same stack.
 */
import type { Simulator } from "../simulator.ts";
import { withCors } from "./cors.ts";
import { withDocs } from "./docs.ts";
import type { Handler } from "./server.ts";

export { prismBodyGenerator } from "./prefer-dynamic.ts";

export interface NodeHostOptions {
  /** `--cors-origin` values; default `*`. */
  corsOrigins?: readonly string[];
  /** Serve the docs page at `/` and `/_docs` (default true). */
  docs?: boolean;
  /** Show API keys on the docs page (default true; off when the control plane has a token or is off). */
  showKeys?: boolean;
}

export function nodeHandler(
  sim: Pick<Simulator, "respond" | "manifest">,
  options: NodeHostOptions = {},
): Handler {
  // `respond`, not `handle`: an answer ready at once is written without a promise.
  const answers: Handler = { handle: (request) => sim.respond(request) };
  const inner: Handler =
    options.docs === false
      ? answers
      : withDocs(answers, { manifest: () => sim.manifest(), showKeys: options.showKeys ?? true });
  return withCors(inner, { origins: options.corsOrigins ?? ["*"] });
}
