/**
 * What a handler is handed: the request with its checked parameters and the world's services
 * (RequestContext), and its body read within the operation's cap and taken as JSON where the operation
 * takes JSON. The engine builds one per request, and a replay builds the same from a recorded change.
 */

import type { Operation } from "../../contract/operations.ts";
import type { Validators } from "../../contract/validate.ts";
import { ApiError } from "../errors.ts";
import type { RequestContext, RouteSpec } from "../resource.ts";
import type { Services } from "../services.ts";
import type { Caller } from "./auth.ts";
import type { HeaderReader, SimRequest } from "./exchange.ts";
import { checkParameters } from "./params.ts";
import type { BodyResult } from "./request-body.ts";
import { DEFAULT_MAX_BODY_BYTES, isJsonType, parseJson, readCapped } from "./request-body.ts";

/** A request as routed to its operation, and its caller: what the `authorize` stage and a replay both have. */
export interface Routed {
  request: SimRequest;
  url: URL;
  /** The URL's path, read once. */
  path: string;
  op: Operation;
  params: Record<string, string>;
  prefix: string;
  caller: Caller | null;
}

/**
 * The context of `routed` in the world of `services`, its parameters checked with `validators`; `recorded`:
 * the headers as recorded for the change log, when changes are recorded.
 */
export function buildContext(
  world: { validators: Validators; services: Services },
  routed: Routed,
  spec: RouteSpec,
  recorded: HeaderReader | null,
): RequestContext {
  const { validators, services } = world;
  const { request, url, path, op, params, prefix, caller } = routed;
  const headers = recorded ?? request.headers;
  const queryValues = checkParameters(validators, op, params, url, headers, spec);
  // The services named one by one, not spread: a spread copied them and then grew the copy's property
  // storage for each field below, several allocations a request where this literal is one.
  return {
    state: services.state,
    clock: services.clock,
    rng: services.rng,
    config: services.config,
    schedule: services.schedule,
    ids: services.ids,
    pageBase: services.pageBase,
    sha256: services.sha256,
    memo: services.memo,
    request,
    url,
    path,
    params,
    queryValues,
    headers,
    body: undefined,
    hasBody: false,
    caller: caller?.user as RequestContext["caller"],
    apiKey: caller?.key as RequestContext["apiKey"],
    prefix,
  };
}

const NO_BODY: BodyResult = Object.freeze({ present: false });

/**
 * Reads the body within the operation's cap, and takes it; answers it as read, for the change log. A read
 * (GET, HEAD) has none, and is answered at once rather than in a promise.
 */
export function readBody(ctx: RequestContext, op: Operation): BodyResult | Promise<BodyResult> {
  if (ctx.request.method === "GET" || ctx.request.method === "HEAD") return NO_BODY;
  return readAndTake(ctx, op);
}

async function readAndTake(ctx: RequestContext, op: Operation): Promise<BodyResult> {
  const raw = await readCapped(ctx.request, op.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (raw.present && op.bodySchemaRef && !isJsonType(ctx.headers.get("content-type"))) {
    throw new ApiError(415, "Content-Type must be application/json");
  }
  takeBody(ctx, op, raw);
  return raw;
}

/** Parses a body as JSON when the operation takes JSON. */
export function takeBody(ctx: RequestContext, op: Operation, raw: BodyResult): void {
  ctx.hasBody = raw.present;
  if (raw.present && op.bodySchemaRef) ctx.body = parseJson(raw.text);
}
