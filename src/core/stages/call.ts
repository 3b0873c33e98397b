/**
 * One request on its way through the stages (./index.ts lists them in order), as phases: each stage takes
 * the phase it needs and hands on the next one, grown by what it found out. The phases are types, so a
 * stage placed before the one that finds out what it needs does not compile.
 *
 *   Arrived → Routed → Authenticated → Authorized → WithBody
 *
 * A stage answers by returning an Outcome, or by throwing an ApiError (the `envelope` stage renders it,
 * with the headers gathered so far).
 */
import type { Operation } from "../../contract/operations.ts";
import type { RecordingHeaders } from "../persistence/recorder.ts";
import type { Caller } from "../request/auth.ts";
import type { SimRequest } from "../request/exchange.ts";
import type { BodyResult } from "../request/request-body.ts";
import type { RequestContext, RouteSpec } from "../resource.ts";

/** What the journal and kept answers learn from a request, whichever stage answered it. */
export interface Who {
  userId: string | null;
  /** It changed nothing: what the core derived from the state stays. */
  pure: boolean;
  /** A change of API keys only: kept answers stay (`RouteSpec.keysOnly`). */
  keysOnly: boolean;
  /** The request's body as read, for the journal. */
  body: string | null;
}

/** A request as a host handed it, its URL read once. */
export interface Arrived {
  readonly request: SimRequest;
  readonly url: URL;
  /** Read once: each read of a URL's pathname makes a new string. */
  readonly path: string;
  readonly who: Who;
  /** Headers every answer carries from the stage that set them on (cache control, rate limits). */
  readonly headers: Record<string, string>;
}

/** Matched to the contract's operation (the `route` stage). */
export interface RoutedPart {
  readonly op: Operation;
  readonly params: Record<string, string>;
  readonly prefix: string;
}
export type Routed = Arrived & RoutedPart;

/** With the key's owner, or null for a public operation (`authenticate`, or a replay's recorded key). */
export interface CallerPart {
  readonly caller: Caller | null;
}
export type Authenticated = Routed & CallerPart;

/** With the resource's route and what its handler is handed, access checked (`authorize`). */
export interface AuthorizedPart {
  readonly spec: RouteSpec;
  readonly ctx: RequestContext;
  /** When changes are recorded: the headers the request was served with. */
  readonly recorded: RecordingHeaders | null;
}
export type Authorized = Authenticated & AuthorizedPart;

/** With its body read, taken and checked (`body`, or a replay's recorded body). */
export interface BodyPart {
  readonly raw: BodyResult;
}
export type WithBody = Authorized & BodyPart;

/** A request's start; `path`: the URL's, as read once (src/core/request/parsed-url.ts). */
export function arrived(request: SimRequest, url: URL, path = url.pathname): Arrived {
  return {
    request,
    url,
    path,
    who: { userId: null, pure: false, keysOnly: false, body: null },
    headers: {},
  };
}
