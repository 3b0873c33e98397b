/**
 * What a resource module declares: for each operationId of the contract, how the simulator serves it.
 * The engine knows nothing about resources; it reads these declarations and the contract.
 */

import type { ValidationIssue } from "../contract/validate.ts";
import type { WorldSection } from "./control/world-section.ts";
import type { ApiError } from "./errors.ts";
import type { HeaderReader, Outcome, SimRequest } from "./request/exchange.ts";
import type { Services } from "./services.ts";
import type { ApiKeyRecord, UserRecord } from "./world/state.ts";

export interface RequestContext extends Services {
  request: SimRequest;
  /**
   * The URL the request reached: its query is `url.searchParams`, its origin (for URLs in responses:
   * statusUrl, continue_url…) `url.origin`, each made when first read rather than on every request.
   */
  url: URL;
  /** The request path, as echoed in error envelopes. */
  path: string;
  /** The matched path template's parameters, percent-decoded. */
  params: Record<string, string>;
  /** Query and header parameters the contract declares, coerced to their schema types and validated. */
  queryValues: Record<string, unknown>;
  headers: HeaderReader;
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown;
  /** True when the request carried a body (even an empty JSON object). */
  hasBody: boolean;
  /** The authenticated caller on authenticated routes. */
  caller: UserRecord;
  apiKey: ApiKeyRecord;
  /** The prefix the request used: `/api/v1`, `/v1`, `/api/acp` or ``. */
  prefix: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What answers a route's requests. */
export type RouteHandler = (ctx: RequestContext) => Reply | Outcome | Promise<Reply | Outcome>;

export interface RouteSpec {
  handler: RouteHandler;
  /**
   * Runs after authentication and parameter checks but before the body is read: access rules (403/404)
   * win over body errors, so a caller who may not touch a resource learns nothing from its body checks.
   */
  authorize?: (ctx: RequestContext) => void;
  /**
   * How a body that fails the contract's schema is answered. Without it the engine answers a generic 400;
   * with it the module names the description's exact message. Returning null lets the handler see the body.
   */
  invalidBody?: (issues: ValidationIssue[], body: unknown) => ApiError | null;
  /**
   * How a query or header parameter that breaks the contract is answered, when the module's message is
   * more specific than the engine's `Invalid query parameter <name>`. Returning null keeps the engine's.
   */
  invalidParameter?: (name: string, where: "query" | "header", value: string) => ApiError | null;
  /**
   * The handler changes nothing: the request runs outside the serial section of changes, is not recorded,
   * and leaves what other requests derived in place (src/core/world/memo.ts). On GET and HEAD the engine then
   * reuses the rendered answer until the state may have changed, unless the route is `volatile`. A pure
   * POST (the preview) depends on its body, and its answer is made anew each time.
   *
   * Or a test, asked right before the handler runs, for a route that changes something only now and then
   * (a listing that repairs what it finds broken): pure when it answers true, a change as any other when
   * false. It must read only, and answer false whenever the handler would change anything.
   */
  pure?: true | ((ctx: RequestContext) => boolean);
  /**
   * With `pure`: the answer shows what moves without a change (the virtual clock's time, an API key's
   * `lastUsedAt` that every request sets), so it is rendered anew for each request and never reused.
   * Without this, a pure GET's answer may depend only on the state, the caller, the path and the query.
   */
  volatile?: true;
  /**
   * The change writes API keys only (the `apiKeys` and `apiKeyByHash` tables), which no kept answer reads
   * (tests check it: `verifyKeptAnswers`): what other requests rendered stays in the memo. Managing keys
   * is frequent beside reads (a client rotating its key), and a change that dropped every rendered
   * Audience for it made each read after it render anew.
   */
  keysOnly?: true;
}

export type JobHandler = (services: Services, payload: unknown) => void;

export interface ResourceModule {
  /** Routes by operationId. */
  routes: Record<string, RouteSpec>;
  /** Background jobs by kind. */
  jobs?: Record<string, JobHandler>;
  /** Runs once after each scenario build, e.g. to schedule work for records that start mid-flight. */
  init?: (services: Services) => void;
  /**
   * Serves paths outside the contract (a page a buyer opens, say): `claims` says which paths are its own
   * (cheaply, so that every other request skips it), `serve` answers them. No API key, rate limit or fault
   * rule applies there.
   */
  outside?: {
    claims: (pathname: string) => boolean;
    serve: (request: SimRequest, url: URL, services: Services) => Promise<Outcome | null>;
  };
  /** What the dashboard shows of the module's records (`GET /__sim/world`, src/core/control/world-view.ts). */
  view?: (services: Services) => WorldSection[];
}
