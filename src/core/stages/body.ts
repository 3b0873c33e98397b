/**
 * The request's body: read within the operation's cap (413 beyond it), taken as JSON where the operation
 * takes JSON (415 for another media type, 400 for what does not parse), and checked against the contract's
 * schema and the route's own body rules. A read (GET, HEAD) has none and passes at once.
 */

import type { Validators } from "../../contract/validate.ts";
import type { BodyResult } from "../body.ts";
import { readBody } from "../context.ts";
import { checkBody } from "../params.ts";
import type { ApiCall, Stage } from "./call.ts";

/** `validators`: the contract's, which the body's schema is checked with. */
export function body(validators: Validators): Stage {
  const take = (call: ApiCall, raw: BodyResult): undefined => {
    call.raw = raw;
    if (raw.present) call.who.body = raw.text;
    checkBody(validators, call.ctx, call.op, call.spec);
    return undefined;
  };
  return {
    name: "body",
    run(call) {
      const raw = readBody(call.ctx, call.op);
      return raw instanceof Promise ? raw.then((r) => take(call, r)) : take(call, raw);
    },
  };
}
