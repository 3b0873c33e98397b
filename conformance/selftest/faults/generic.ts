/** The deliberate faults that the checks of checks/generic.ts must each report. */

import * as checks from "../../checks/generic.ts";
import type { FaultCase } from "../fault-kit.ts";
import { AUD, bodyOf, casesOf, editWhen, is, isV1, on, withBody } from "../fault-kit.ts";
import type { Fault } from "../harness.ts";
import { callerOf, editJson, envelope, keyOf, pathOf, withHeaders, withStatus } from "../harness.ts";
import { as, editProgress, keyFor } from "./helpers.ts";

/** The outsider's 404 for the private Audience turned into a 403 that says it exists, for `methods`. */
const deniedNotHidden =
  (methods: (method: string) => boolean): Fault =>
  async (req, next, env) => {
    const res = await next(req);
    const privateId = env.sim.manifest().audiences.private?.id ?? "?";
    if (
      methods(req.method) &&
      res.status === 404 &&
      callerOf(req, env) === "outsider" &&
      pathOf(req).includes(privateId)
    )
      return envelope(403, "Access denied", pathOf(req));
    return res;
  };

export const GENERIC_FAULTS: FaultCase[] = [
  ...casesOf(checks.validReads, "response/rate-limit-headers", {
    "RateLimit headers dropped on v1 responses": async (req, next) => {
      const res = await next(req);
      return isV1(req)
        ? withHeaders(res, (h) => {
            h.delete("ratelimit-limit");
            h.delete("ratelimit-remaining");
          })
        : res;
    },
  }),
  ...casesOf(checks.hiddenReads, "generic/hidden-existence", {
    "403 instead of 404 for an Audience the caller cannot view": deniedNotHidden(() => true),
    "a different message for a hidden Audience than for a missing one": async (req, next, env) => {
      const res = await next(req);
      if (res.status === 404 && pathOf(req).includes(env.sim.manifest().audiences.private?.id ?? "?"))
        return editJson(res, (b) => ({ ...b, statusMessage: "Access denied", message: "Access denied" }));
      return res;
    },
  }),
  ...casesOf(checks.invalidBodies, "response/no-5xx", {
    "500 for a malformed JSON body": async (req, next) => {
      if (req.method !== "POST" && req.method !== "PUT") return next(req);
      const { req: copy, json } = await bodyOf(req);
      if (json === undefined && copy.headers.get("content-type")?.includes("json")) {
        const text = await copy.clone().text();
        if (text.length > 0) return envelope(500, "Internal Server Error", pathOf(req));
      }
      return next(copy);
    },
  }),
  ...casesOf(checks.unknownWrites, "response/error-envelope", {
    "envelope url is not the request path": async (req, next) => {
      const res = await next(req);
      return res.status >= 400 ? editJson(res, (b) => ({ ...b, url: "/" })) : res;
    },
  }),
  ...casesOf(checks.malformedReads, "response/error-envelope", {
    "envelope statusCode differs from the HTTP status": async (req, next) => {
      const res = await next(req);
      return res.status === 400 ? editJson(res, (b) => ({ ...b, statusCode: 422 })) : res;
    },
  }),
  ...casesOf(checks.validReads, "response/documented-status", {
    "undocumented status 418 for a read": async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/progress$/) ? withStatus(res, 418) : res;
    },
  }),
  ...casesOf(checks.validReads, "response/content-type", {
    "text/plain Content-Type on JSON answers": async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/collaborators$/)
        ? withHeaders(res, (h) => h.set("content-type", "text/plain"))
        : res;
    },
  }),
  ...casesOf(checks.authCheck, {
    "403 instead of 401 for a missing key": async (req, next) => {
      const res = await next(req);
      return res.status === 401 && !req.headers.has("authorization")
        ? envelope(403, "Forbidden", pathOf(req))
        : res;
    },
    "any service_ key authenticates as the owner": async (req, next, env) => {
      const key = keyOf(req);
      if (
        key?.startsWith("service_") &&
        !Object.values(env.sim.manifest().users).some((u) => u.apiKey === key)
      ) {
        const headers = new Headers(req.headers);
        headers.set("authorization", `Bearer ${env.sim.manifest().users.owner?.apiKey}`);
        return next(
          new Request(req.url, {
            method: req.method,
            headers,
            body: req.body,
            duplex: "half",
          } as RequestInit),
        );
      }
      return next(req);
    },
  }),
  ...casesOf(checks.malformedReads, "generic/malformed-ids", {
    "malformed audience ID answered 404 instead of 400": async (req, next) => {
      const res = await next(req);
      return res.status === 400 && req.method === "GET"
        ? editJson(withStatus(res, 404), (b) => ({ ...b, statusCode: 404 }))
        : res;
    },
  }),
  ...casesOf(checks.invalidBodies, {
    "a rejected body still creates the API key": async (req, next, env) => {
      if (!is(req, "POST", /\/api-keys$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const res = await next(copy);
      if (
        res.status === 400 &&
        json &&
        typeof json === "object" &&
        !Array.isArray(json) &&
        !env.memory.has("leaked")
      ) {
        env.memory.set("leaked", true);
        await next(withBody(copy, {}));
      }
      return res;
    },
  }),
  ...casesOf(checks.validReads, "response/non-cacheable", {
    "Cache-Control missing on private Audience answers": async (req, next) =>
      withHeaders(await next(req), (h) => h.delete("cache-control")),
  }),
  ...casesOf(checks.prefixes, {
    "/v1 prefix not served": async (req, next) =>
      pathOf(req).startsWith("/v1/") ? envelope(404, "Not Found", pathOf(req)) : next(req),
  }),
  ...casesOf(checks.hiddenWrites, "generic/hidden-existence-writes", {
    "403 instead of 404 for a write to an Audience the caller cannot view": deniedNotHidden(
      (method) => method !== "GET",
    ),
  }),
  ...casesOf(checks.invalidQuery, {
    "a query value outside its enum is ignored (200 instead of 400)": async (req, next) => {
      const url = new URL(req.url);
      for (const [k, v] of [...url.searchParams]) if (v === "not-in-the-enum") url.searchParams.delete(k);
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(checks.malformedWrites, "generic/malformed-ids-writes", {
    "malformed ID on a write answered 404 instead of 400": async (req, next) => {
      const res = await next(req);
      return res.status === 400 && req.method !== "GET"
        ? editJson(withStatus(res, 404), (b) => ({ ...b, statusCode: 404, statusMessage: "Not Found" }))
        : res;
    },
  }),
  ...casesOf(checks.unknownReads, "generic/unknown-ids-reads", {
    "a blank ID the contract allows answered 400 as if it were missing": async (req, next) =>
      /\/recalibrate\/operations\/%20$/.test(pathOf(req))
        ? envelope(400, "Operation ID is required", pathOf(req))
        : next(req),
    "unknown ID on a read answered 200 instead of 404": async (req, next) => {
      const res = await next(req);
      return req.method === "GET" && res.status === 404
        ? editJson(withStatus(res, 200), () => ({ data: {} }))
        : res;
    },
  }),
  ...casesOf(checks.mediaTypes, {
    "application/json with a charset parameter refused as 415": async (req, next) =>
      req.method !== "GET" && /;\s*charset/i.test(req.headers.get("content-type") ?? "")
        ? envelope(415, "Content-Type must be application/json", pathOf(req))
        : next(req),
    "a JSON body sent as text/plain or form data is taken as JSON": async (req, next) => {
      if (req.method === "GET" || req.method === "HEAD") return next(req);
      const headers = new Headers(req.headers);
      headers.set("content-type", "application/json");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
  ...casesOf(checks.malformedReads, "generic/malformed-ids", {
    "a malformed path ID answered with another message than x-error-messages names": editWhen(
      (req, res) => res.status === 400 && /\/(audiences|api-keys)\//.test(pathOf(req)),
      (b) => {
        if (/ID (is required|format)$/.test(b?.statusMessage ?? "")) b.statusMessage = b.message = "Bad ID";
      },
    ),
  }),
  ...casesOf(checks.unknownReads, "response/error-envelope", {
    "an error's message differs from its statusMessage": editWhen(on("GET", /./, 404), (b) => {
      if (b) b.message = `${b.message} (details)`;
    }),
    "error: false in the error envelope": editWhen(on("GET", /./, 404), (b) => {
      if (b) b.error = false;
    }),
  }),
  ...casesOf(checks.authCheck, {
    "a 401 whose statusMessage is not `Unauthorized`": editWhen(
      (_req, res) => res.status === 401,
      (b) => {
        if (b) b.statusMessage = b.message = "Invalid or missing API key";
      },
    ),
  }),
  ...casesOf(checks.validReads, {
    "/_openapi.json is not served": async (req, next) =>
      pathOf(req) === "/_openapi.json" ? envelope(404, "Not Found", pathOf(req)) : next(req),
  }),
  ...casesOf(checks.unknownWrites, {
    "removing a Mind that is not a member answers 404": async (req, next, env) => {
      const m = new RegExp(`/audiences/(${AUD})/members/([^/]+)$`).exec(pathOf(req));
      if (req.method !== "DELETE" || !m) return next(req);
      const read = await next(
        as(new Request(new URL(`/api/v1/audiences/${m[1]}`, req.url)), keyFor(env, "owner")),
      );
      const members = read.ok ? ((await read.json()).data?.minds ?? []).map((x: { id: string }) => x.id) : [];
      return members.includes(m[2]) ? next(req) : envelope(404, "Mind not found", pathOf(req));
    },
  }),
  ...casesOf(checks.validReads, "response/schema", {
    "reconciledAt given as an ISO date-time, not epoch milliseconds": editProgress((d) => {
      if (typeof d.reconciledAt === "number") d.reconciledAt = new Date(d.reconciledAt).toISOString();
    }),
  }),
];
