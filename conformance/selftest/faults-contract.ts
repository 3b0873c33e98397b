/**
 * Faults against the generic, response, rate-limit and wire checks: what every operation of the contract
 * owes, from the HTTP layer up.
 */
import { keySecrets } from "../checks/api-keys.ts";
import {
  authCheck,
  hiddenReads,
  hiddenWrites,
  invalidBodies,
  invalidQuery,
  malformedReads,
  malformedWrites,
  mediaTypes,
  prefixes,
  unknownReads,
  unknownWrites,
  validReads,
} from "../checks/generic.ts";
import { planLimit } from "../checks/members.ts";
import { rateLimit } from "../checks/ratelimit.ts";
import { httpLayer, requestSize } from "../checks/wire.ts";
import { bodyOf, type FaultCase, is, isV1, withBody } from "./fault-kit.ts";
import { callerOf, editJson, envelope, keyOf, pathOf, withHeaders, withStatus } from "./harness.ts";

export const CONTRACT_FAULTS: FaultCase[] = [
  {
    name: "RateLimit headers dropped on v1 responses",
    checks: [validReads],
    reportedBy: "response/rate-limit-headers",
    fault: async (req, next) => {
      const res = await next(req);
      return isV1(req)
        ? withHeaders(res, (h) => {
            h.delete("ratelimit-limit");
            h.delete("ratelimit-remaining");
          })
        : res;
    },
  },
  {
    name: "403 instead of 404 for an Audience the caller cannot view",
    checks: [hiddenReads],
    reportedBy: "generic/hidden-existence",
    fault: async (req, next, env) => {
      const res = await next(req);
      if (
        res.status === 404 &&
        callerOf(req, env) === "outsider" &&
        pathOf(req).includes(env.sim.manifest().audiences.private?.id ?? "?")
      )
        return envelope(403, "Access denied", pathOf(req));
      return res;
    },
  },
  {
    name: "a different message for a hidden Audience than for a missing one",
    checks: [hiddenReads],
    reportedBy: "generic/hidden-existence",
    fault: async (req, next, env) => {
      const res = await next(req);
      if (res.status === 404 && pathOf(req).includes(env.sim.manifest().audiences.private?.id ?? "?"))
        return editJson(res, (b) => ({ ...b, statusMessage: "Access denied", message: "Access denied" }));
      return res;
    },
  },
  {
    name: "500 for a malformed JSON body",
    checks: [invalidBodies],
    reportedBy: "response/no-5xx",
    fault: async (req, next) => {
      if (req.method !== "POST" && req.method !== "PUT") return next(req);
      const { req: copy, json } = await bodyOf(req);
      if (json === undefined && copy.headers.get("content-type")?.includes("json")) {
        const text = await copy.clone().text();
        if (text.length > 0) return envelope(500, "Internal Server Error", pathOf(req));
      }
      return next(copy);
    },
  },
  {
    name: "envelope url is not the request path",
    checks: [unknownWrites],
    reportedBy: "response/error-envelope",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status >= 400 ? editJson(res, (b) => ({ ...b, url: "/" })) : res;
    },
  },
  {
    name: "envelope statusCode differs from the HTTP status",
    checks: [malformedReads],
    reportedBy: "response/error-envelope",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 400 ? editJson(res, (b) => ({ ...b, statusCode: 422 })) : res;
    },
  },
  {
    name: "undocumented status 418 for a read",
    checks: [validReads],
    reportedBy: "response/documented-status",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/progress$/) ? withStatus(res, 418) : res;
    },
  },
  {
    name: "text/plain Content-Type on JSON answers",
    checks: [validReads],
    reportedBy: "response/content-type",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/collaborators$/)
        ? withHeaders(res, (h) => h.set("content-type", "text/plain"))
        : res;
    },
  },
  {
    name: "the creation response of an API key has no secret",
    checks: [keySecrets],
    reportedBy: "response/schema",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/api-keys$/) && res.status === 201
        ? editJson(res, (b) => ({ ...b, key: undefined }))
        : res;
    },
  },
  {
    name: "Retry-After missing on 429",
    checks: [rateLimit],
    reportedBy: "ratelimit/429",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 429 ? withHeaders(res, (h) => h.delete("retry-after")) : res;
    },
  },
  {
    name: "no 429 at all (the limiter never refuses)",
    checks: [rateLimit],
    reportedBy: "ratelimit/429",
    fault: async (req, next) => {
      const res = await next(req);
      if (res.status !== 429) return res;
      return new Response(JSON.stringify({ id: "someone" }), {
        status: 200,
        headers: { "content-type": "application/json", "ratelimit-limit": "5", "ratelimit-remaining": "0" },
      });
    },
  },
  {
    name: "403 instead of 401 for a missing key",
    checks: [authCheck],
    reportedBy: "generic/auth-401",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 401 && !req.headers.has("authorization")
        ? envelope(403, "Forbidden", pathOf(req))
        : res;
    },
  },
  {
    name: "any service_ key authenticates as the owner",
    checks: [authCheck],
    reportedBy: "generic/auth-401",
    fault: async (req, next, env) => {
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
  },
  {
    name: "malformed audience ID answered 404 instead of 400",
    checks: [malformedReads],
    reportedBy: "generic/malformed-ids",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 400 && req.method === "GET"
        ? editJson(withStatus(res, 404), (b) => ({ ...b, statusCode: 404 }))
        : res;
    },
  },
  {
    name: "a rejected body still creates the API key",
    checks: [invalidBodies],
    reportedBy: "generic/invalid-bodies",
    fault: async (req, next, env) => {
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
  },
  {
    name: "PlanLimitError without `current`",
    checks: [planLimit],
    reportedBy: "response/schema",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 403
        ? editJson(res, (b) => {
            if (b?.data) delete b.data.current;
          })
        : res;
    },
  },
  {
    name: "Cache-Control missing on private Audience answers",
    checks: [validReads],
    reportedBy: "response/non-cacheable",
    fault: async (req, next) => withHeaders(await next(req), (h) => h.delete("cache-control")),
  },
  {
    name: "/v1 prefix not served",
    checks: [prefixes],
    reportedBy: "generic/v1-prefixes",
    fault: async (req, next) =>
      pathOf(req).startsWith("/v1/") ? envelope(404, "Not Found", pathOf(req)) : next(req),
  },
  {
    name: "403 instead of 404 for a write to an Audience the caller cannot view",
    checks: [hiddenWrites],
    reportedBy: "generic/hidden-existence-writes",
    fault: async (req, next, env) => {
      const res = await next(req);
      if (
        req.method !== "GET" &&
        res.status === 404 &&
        callerOf(req, env) === "outsider" &&
        pathOf(req).includes(env.sim.manifest().audiences.private?.id ?? "?")
      )
        return envelope(403, "Access denied", pathOf(req));
      return res;
    },
  },
  {
    name: "a query value outside its enum is ignored (200 instead of 400)",
    checks: [invalidQuery],
    reportedBy: "generic/invalid-query",
    fault: async (req, next) => {
      const url = new URL(req.url);
      for (const [k, v] of [...url.searchParams]) if (v === "not-in-the-enum") url.searchParams.delete(k);
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  },
  {
    name: "malformed ID on a write answered 404 instead of 400",
    checks: [malformedWrites],
    reportedBy: "generic/malformed-ids-writes",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 400 && req.method !== "GET"
        ? editJson(withStatus(res, 404), (b) => ({ ...b, statusCode: 404, statusMessage: "Not Found" }))
        : res;
    },
  },
  {
    name: "unknown ID on a read answered 200 instead of 404",
    checks: [unknownReads],
    reportedBy: "generic/unknown-ids-reads",
    fault: async (req, next) => {
      const res = await next(req);
      return req.method === "GET" && res.status === 404
        ? editJson(withStatus(res, 200), () => ({ data: {} }))
        : res;
    },
  },
  {
    name: "a JSON body sent as text/plain or form data is taken as JSON",
    checks: [mediaTypes],
    reportedBy: "generic/media-type",
    fault: async (req, next) => {
      if (req.method === "GET" || req.method === "HEAD") return next(req);
      const headers = new Headers(req.headers);
      headers.set("content-type", "application/json");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  },
  {
    name: "node:http defaults in front: bare 400 for no Host, bare 417 for an unknown Expect",
    checks: [httpLayer],
    layer: "node-defaults",
    reportedBy: "wire/http-layer",
    fault: (req, next) => next(req),
  },
  {
    name: "node:http defaults in front: a 16 KiB head refuses valid long filters",
    checks: [requestSize],
    layer: "node-defaults",
    reportedBy: "wire/request-size",
    fault: (req, next) => next(req),
  },
  {
    name: "a valid long filters refused as too long",
    checks: [requestSize],
    reportedBy: "wire/request-size",
    fault: async (req, next) => (req.url.length > 16_384 ? envelope(414, "URI Too Long", "") : next(req)),
  },
];
