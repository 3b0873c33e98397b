/**
 * Prism-style control by `Prefer` (code=, example=, dynamic=): after authentication and the rate limit,
 * the contract's example (or a generated body) answers instead of the resource's handler. A `Prefer` that
 * names none of them passes the request on.
 */
import type { Lifetime } from "../lifetime.ts";
import { type GenerateBody, parsePrefer, preferredResponse } from "../prefer.ts";
import type { Stage } from "./call.ts";

export function prefer(life: Lifetime, generateBody: GenerateBody | undefined): Stage {
  return {
    name: "prefer",
    run(call) {
      const header = call.request.headers.get("prefer");
      const prefs = header === null ? null : parsePrefer(header);
      if (!prefs) return undefined;
      return life.delay().then(() =>
        preferredResponse(call.op, prefs, {
          path: call.path,
          accept: call.request.headers.get("accept"),
          headers: call.headers,
          generateBody,
          seed: life.nextPreferSeed(),
          pointers: life.contract,
        }),
      );
    },
  };
}
