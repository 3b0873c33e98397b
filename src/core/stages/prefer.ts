/**
 * Prism-style control by `Prefer` (code=, example=, dynamic=): after authentication and the rate limit,
 * the contract's example (or a generated body) answers instead of the resource's handler. A `Prefer` that
 * names none of them passes the request on.
 */
import type { Pointers } from "../../contract/document.ts";
import { type GenerateBody, parsePrefer, preferredResponse } from "../request/preferred-answers.ts";
import type { Authenticated } from "./call.ts";
import type { Stage } from "./compose.ts";

export interface PreferDeps {
  /** The configured latency, waited before the preferred answer. */
  delay(): Promise<void>;
  /** The next seed of generated bodies: the same simulator seed and requests, the same bodies. */
  seed(): string;
  generateBody: GenerateBody | undefined;
  pointers: Pointers;
}

export function prefer(d: PreferDeps): Stage<Authenticated> {
  return {
    name: "prefer",
    run(call, next) {
      const header = call.request.headers.get("prefer");
      const prefs = header === null ? null : parsePrefer(header);
      if (!prefs) return next(call);
      return d.delay().then(() =>
        preferredResponse(call.op, prefs, {
          path: call.path,
          accept: call.request.headers.get("accept"),
          headers: call.headers,
          generateBody: d.generateBody,
          seed: d.seed(),
          pointers: d.pointers,
        }),
      );
    },
  };
}
