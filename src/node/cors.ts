/**
 * CORS for the Node host, so a browser app on another origin (say a dev server on :5173) can call the
 * simulator directly. Wraps any `fetch` handler:
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed origin is
 *   answered 204 with the API's methods and request headers; from another origin it is a 403 envelope
 *   naming the allowed ones (the browser then refuses the call, and the network panel says why).
 * - Every other request carrying an allowed `Origin` gets `Access-Control-Allow-Origin` and
 *   `Access-Control-Expose-Headers` (rate-limit headers, `Retry-After`, `Content-Disposition`...), so the
 *   app can read them. Requests without `Origin` (curl, tests, same-origin navigation) are left as they are.
 *
 * Origins are `*` (the default: any origin) or exact origins such as `http://localhost:5173`. Credentials
 * (cookies) are not part of the API, so `Access-Control-Allow-Credentials` is never sent; an API key in
 * `Authorization` works with `*` because it is an explicitly allowed request header, not a credential.
 */
import { ApiError } from "../core/errors.ts";
import { Answer, LineStream, type Outcome, type SimRequest } from "../core/request/exchange.ts";
import { renderError } from "../core/request/render.ts";
import type { Handler } from "./server.ts";

export const CORS_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

export const CORS_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "x-service-idempotency-key",
  "Idempotency-Key",
  "API-Version",
  "Prefer",
  "x-sim-control-token",
] as const;

export const CORS_EXPOSED_HEADERS = [
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "Retry-After",
  "Content-Disposition",
  "Location",
  "Allow",
  "Preference-Applied",
  "x-sim-prefer-fallback",
] as const;

/** How long a browser may cache a preflight answer, in seconds. */
const MAX_AGE_SECONDS = 600;

export interface CorsOptions {
  /** `*` or exact origins (`scheme://host[:port]`); default `["*"]`. */
  origins?: readonly string[];
}

/** Checks and normalises a `--cors-origin` value; throws with a readable message when it is not an origin. */
export function parseCorsOrigin(value: string): string {
  const v = value.trim();
  if (v === "*") return v;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new Error(`"${value}" is not an origin; use * or e.g. http://localhost:5173`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== v.replace(/\/$/, "")) {
    throw new Error(
      `"${value}" is not an origin (scheme://host[:port], no path); e.g. http://localhost:5173`,
    );
  }
  return url.origin;
}

export function withCors(inner: Handler, options: CorsOptions = {}): Handler {
  const list = options.origins && options.origins.length > 0 ? options.origins : ["*"];
  const any = list.includes("*");
  const allowed = new Set(list);
  const allowOrigin = (origin: string): string | null => (any ? "*" : allowed.has(origin) ? origin : null);
  const vary = any ? {} : { vary: "Origin" };

  return {
    // Not async on the way every request without Origin takes (curl, tests, servers).
    handle: (request) => {
      const origin = request.headers.get("origin");
      return origin === null ? inner.handle(request) : withOrigin(request, origin);
    },
  };

  async function withOrigin(request: SimRequest, origin: string): Promise<Outcome> {
    const allow = allowOrigin(origin);
    if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
      if (allow === null) return forbiddenOrigin(request, origin, list);
      return new Answer(
        204,
        {
          "access-control-allow-origin": allow,
          "access-control-allow-methods": CORS_METHODS.join(", "),
          "access-control-allow-headers": CORS_REQUEST_HEADERS.join(", "),
          "access-control-max-age": String(MAX_AGE_SECONDS),
          ...vary,
          "content-length": "0",
        },
        null,
      );
    }
    const response = await inner.handle(request);
    if (allow === null) return response;
    const extra: Record<string, string> = {
      "access-control-allow-origin": allow,
      "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(", "),
      ...vary,
    };
    if (response instanceof Answer || response instanceof LineStream) return withExtra(response, extra);
    try {
      for (const [k, v] of Object.entries(extra)) {
        if (k === "vary" && response.headers.has("vary")) response.headers.append(k, v);
        else response.headers.set(k, v);
      }
      return response;
    } catch {
      // Immutable headers (a Response from fetch()): copy it.
      const headers = new Headers(response.headers);
      for (const [k, v] of Object.entries(extra)) headers.set(k, v);
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
  }
}

/** The CORS headers set over the answer's own; `Vary` is added to, not replaced. */
function withExtra(answer: Answer | LineStream, extra: Record<string, string>): Outcome {
  const headers = { ...answer.headers, ...extra };
  const vary = answer.headers.vary;
  if (extra.vary !== undefined && vary !== undefined) headers.vary = `${vary}, ${extra.vary}`;
  return answer.withHeaderSet(headers);
}

function forbiddenOrigin(request: SimRequest, origin: string, list: readonly string[]): Answer {
  const message = `Origin ${origin} is not allowed; allowed: ${list.join(", ")} (start with --cors-origin ${origin})`;
  const path = URL.parse(request.url)?.pathname ?? "";
  return renderError(new ApiError(403, message), path, { vary: "Origin" });
}
