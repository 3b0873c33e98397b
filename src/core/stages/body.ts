/**
 * The request's body: read within the operation's cap (413 beyond it), taken as JSON where the operation
 * takes JSON (415 for another media type, 400 for what does not parse), and checked against the contract's
 * schema and the route's own body rules. A read (GET, HEAD) has none and passes at once. A replay hands in
 * the body it recorded instead of reading one.
 */
import type { Validators } from "../../contract/validate.ts";
import { readBody, takeBody } from "../request/context.ts";
import { checkBody } from "../request/params.ts";
import type { BodyResult } from "../request/request-body.ts";
import type { Authorized, BodyPart } from "./call.ts";
import { grown, type Next, type Stage } from "./compose.ts";

/** How a call's body is had, and taken into its context: read from the request, or as recorded. */
export type BodySource<In extends Authorized = Authorized> = (call: In) => BodyResult | Promise<BodyResult>;

/** The body the request sends. */
export const sentBody: BodySource = (call) => readBody(call.ctx, call.op);

/** A body recorded as text (or none), taken as the request's. */
export function takenAsRecorded(call: Authorized, text: string | null): BodyResult {
  const raw: BodyResult = text === null ? { present: false } : { present: true, text };
  takeBody(call.ctx, call.op, raw);
  return raw;
}

/** `validators`: the contract's, which the body's schema is checked with; `source`: where the body comes from. */
export function body<In extends Authorized = Authorized>(
  validators: Validators,
  source: BodySource<In> = sentBody,
): Stage<In, BodyPart> {
  const take = <C extends In>(call: C, raw: BodyResult, next: Next<C & BodyPart>) => {
    if (raw.present) call.who.body = raw.text;
    checkBody(validators, call.ctx, call.op, call.spec);
    return next(grown(call, { raw }));
  };
  return {
    name: "body",
    run(call, next) {
      const raw = source(call);
      return raw instanceof Promise ? raw.then((r) => take(call, r, next)) : take(call, raw, next);
    },
  };
}
