/**
 * One deliberate fault per case, each paired with the check that must report it. The faults are written
 * against the simulator's behaviour (a wrapper around its fetch), never inside it.
 */

import {
  audienceDelete,
  checkout,
  collaborators,
  duplicateReplay,
  exportsRules,
  facets,
  fileRedaction,
  followRules,
  formationPages,
  formationVisibility,
  identity,
  keyAccess,
  keySecrets,
  largeAudience,
  largePreview,
  membersRules,
  pendingRecalibrations,
  planLimit,
  previewStream,
  progressRules,
  recalibrateReplay,
  selfDelete,
  updateRules,
  visibility,
} from "../checks/domain.ts";
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
import {
  bodySizes,
  duplicateLimits,
  filterLimits,
  keyName,
  memberIdCount,
  pagination,
  subgroupCounts,
  userInput,
} from "../checks/limits.ts";
import { rateLimit } from "../checks/ratelimit.ts";
import { recalibrationStatus } from "../checks/recalibration.ts";
import { checkoutModel, formationsModel, keysModel, membersModel } from "../checks/stateful.ts";
import { httpLayer, requestSize } from "../checks/wire.ts";
import type { CheckDef } from "../lib/context.ts";
import {
  callerOf,
  editJson,
  envelope,
  type Fault,
  type HttpLayer,
  keyOf,
  pathOf,
  withHeaders,
  withStatus,
} from "./harness.ts";

export interface FaultCase {
  name: string;
  fault: Fault;
  /** The HTTP layer in front of it (the project's host unless said). */
  layer?: HttpLayer;
  checks: CheckDef[];
  /** The check (name prefix) that must report it. */
  reportedBy: string;
}

const isV1 = (req: Request) => /^\/(api\/)?v1\//.test(pathOf(req));
const is = (req: Request, method: string, re: RegExp) => req.method === method && re.test(pathOf(req));
const AUD = "[0-9a-f-]{36}";

async function bodyOf(req: Request): Promise<{ req: Request; json: unknown }> {
  const text = await req.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { req: new Request(req.url, { method: req.method, headers: req.headers, body: text }), json };
}

function withBody(req: Request, json: unknown): Request {
  return new Request(req.url, { method: req.method, headers: req.headers, body: JSON.stringify(json) });
}

export const FAULTS: FaultCase[] = [
  {
    name: "a collaborator (not the owner) can delete the Audience",
    checks: [audienceDelete],
    reportedBy: "domain/audience-delete",
    fault: async (req, next, env) => {
      if (
        req.method === "DELETE" &&
        new RegExp(`/audiences/${AUD}$`).test(pathOf(req)) &&
        callerOf(req, env) === "admin"
      )
        return new Response(null, {
          status: 204,
          headers: { "ratelimit-limit": "300", "ratelimit-remaining": "299" },
        });
      return next(req);
    },
  },
  {
    name: "a direct member can remove collaborators",
    checks: [collaborators],
    reportedBy: "domain/collaborators",
    fault: async (req, next, env) => {
      if (req.method === "DELETE" && /\/collaborators\//.test(pathOf(req)) && callerOf(req, env) === "member")
        return new Response(JSON.stringify({ data: { success: true } }), {
          status: 200,
          headers: {
            "content-type": "application/json",
            "ratelimit-limit": "300",
            "ratelimit-remaining": "299",
          },
        });
      return next(req);
    },
  },
  {
    name: "an eleventh pending recalibration accepted",
    checks: [pendingRecalibrations],
    reportedBy: "limits/pending-recalibrations",
    fault: async (req, next) => {
      const res = await next(req);
      if (res.status !== 409 || !is(req, "POST", /\/recalibrate$/)) return res;
      return editJson(withStatus(res, 202), () => ({
        data: {
          operation: {
            id: "op-fake",
            requestKey: "rk",
            status: "queued",
            progress: 0,
            statusUrl: "/x",
            result: null,
            error: null,
          },
        },
      }));
    },
  },
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
    name: "the secret `key` leaked in API key listings",
    checks: [keySecrets],
    reportedBy: "domain/api-key-secrets",
    fault: async (req, next, env) => {
      const res = await next(req);
      if (is(req, "GET", /\/api-keys$/))
        return editJson(res, (b) => (Array.isArray(b) ? b.map((k) => ({ ...k, key: keyOf(req) })) : b));
      if (is(req, "POST", /\/api-keys$/) && res.status === 201) {
        const copy = res.clone();
        const body = await copy.json();
        env.memory.set("lastKey", body.key);
      }
      return res;
    },
  },
  {
    name: "mindIds used although mindId is present",
    checks: [membersRules],
    reportedBy: "domain/members",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { mindId?: string; mindIds?: string[] } | undefined;
      if (b?.mindId && b.mindIds) return next(withBody(copy, { mindIds: b.mindIds }));
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
    name: "a deleted key keeps authenticating",
    checks: [keysModel],
    reportedBy: "stateful/api-keys",
    fault: async (req, next) =>
      is(req, "DELETE", /\/api-keys\/c[a-z0-9]{24}$/)
        ? new Response(null, {
            status: 204,
            headers: { "ratelimit-limit": "300", "ratelimit-remaining": "299" },
          })
        : next(req),
  },
  {
    name: "1001 member IDs accepted",
    checks: [memberIdCount],
    reportedBy: "limits/member-ids",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { mindIds?: string[] } | undefined;
      if (b?.mindIds && b.mindIds.length > 1000)
        return next(withBody(copy, { mindIds: b.mindIds.slice(0, 1000) }));
      return next(copy);
    },
  },
  {
    name: "reserved subgroup id accepted",
    checks: [subgroupCounts],
    reportedBy: "limits/subgroups",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/formations$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const h = (json as { hypothesis?: { subgroups?: { id: string }[] } })?.hypothesis;
      if (h?.subgroups?.some((s) => s.id === "__other")) {
        for (const s of h.subgroups) if (s.id === "__other") s.id = "other-renamed";
        return next(withBody(copy, json));
      }
      return next(copy);
    },
  },
  {
    name: "NDJSON stream without `done`",
    checks: [previewStream],
    reportedBy: "domain/preview-stream",
    fault: async (req, next) => {
      const res = await next(req);
      if (!res.headers.get("content-type")?.includes("ndjson")) return res;
      const text = (await res.text())
        .split("\n")
        .filter((l) => l && !l.includes('"done"'))
        .join("\n");
      return new Response(`${text}\n`, { status: res.status, headers: res.headers });
    },
  },
  {
    name: "NDJSON events out of order (status before meta)",
    checks: [previewStream],
    reportedBy: "domain/preview-stream",
    fault: async (req, next) => {
      const res = await next(req);
      if (!res.headers.get("content-type")?.includes("ndjson")) return res;
      const lines = (await res.text()).split("\n").filter(Boolean);
      [lines[0], lines[1]] = [lines[1] as string, lines[0] as string];
      return new Response(`${lines.join("\n")}\n`, { status: res.status, headers: res.headers });
    },
  },
  {
    name: "no 406 when Accept allows nothing supported",
    checks: [previewStream],
    reportedBy: "domain/preview-stream",
    fault: async (req, next) => {
      if (
        /\/formations\/preview$/.test(pathOf(req)) &&
        /html|xml|q=0,/.test(req.headers.get("accept") ?? "")
      ) {
        const headers = new Headers(req.headers);
        headers.set("accept", "application/json");
        return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
      }
      return next(req);
    },
  },
  {
    name: "ACP create accepts extra top-level properties",
    checks: [checkout],
    reportedBy: "domain/checkout",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as Record<string, unknown> | undefined;
      if (b && "coupon" in b) {
        delete b.coupon;
        return next(withBody(copy, b));
      }
      return next(copy);
    },
  },
  {
    name: "ACP API-Version ignored",
    checks: [checkout],
    reportedBy: "domain/checkout",
    fault: async (req, next) => {
      if (!req.headers.has("api-version")) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("api-version");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  },
  {
    name: "duplicate replay makes a new copy",
    checks: [duplicateReplay],
    reportedBy: "domain/duplicate-replay",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("x-service-idempotency-key");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  },
  {
    name: "facet counts off by one",
    checks: [facets],
    reportedBy: "domain/filter-facets",
    fault: async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/filter-attributes$/) || !new URL(req.url).searchParams.has("filters"))
        return res;
      return editJson(res, (b) => {
        for (const f of b.data.facets) for (const v of f.values) v.count += 1;
      });
    },
  },
  {
    name: "wrong pagination hasMore",
    checks: [formationPages],
    reportedBy: "domain/formation-pagination",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/formations$/)
        ? editJson(res, (b) => {
            if (b.pagination) b.pagination.hasMore = !b.pagination.hasMore;
          })
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
    name: "sharing fields shown to public viewers",
    checks: [visibility],
    reportedBy: "domain/audience-visibility",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", new RegExp(`/audiences/${AUD}$`))
        ? editJson(res, (b) => {
            if (b?.data && b.data.currentMemberRole === "public_viewer")
              Object.assign(b.data, {
                isSharedWithTeam: false,
                isLinkSharingEnabled: false,
                publicShareId: null,
              });
          })
        : res;
    },
  },
  {
    name: "uploaded-file URLs not redacted for Study viewers",
    checks: [fileRedaction],
    reportedBy: "domain/file-url-redaction",
    fault: async (req, next, env) => {
      if (!is(req, "GET", new RegExp(`/audiences/${AUD}$`)) || callerOf(req, env) !== "studyViewer")
        return next(req);
      const headers = new Headers(req.headers);
      headers.set("authorization", `Bearer ${env.sim.manifest().users.owner?.apiKey}`);
      const res = await next(new Request(req.url, { headers }));
      return editJson(res, (b) => {
        if (b?.data) b.data.currentMemberRole = "public_viewer";
        for (const k of ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"]) delete b?.data?.[k];
      });
    },
  },
  {
    name: "`added` counts new memberships instead of distinct IDs",
    checks: [membersRules],
    reportedBy: "domain/members",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/members$/) && res.status === 200
        ? editJson(res, (b) => {
            b.data.added = Math.max(1, b.data.added - 1);
          })
        : res;
    },
  },
  {
    name: "API key listing oldest first",
    checks: [keySecrets],
    reportedBy: "domain/api-key-secrets",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/api-keys$/)
        ? editJson(res, (b) => (Array.isArray(b) ? [...b].reverse() : b))
        : res;
    },
  },
  {
    name: "userInput of 2001 characters accepted",
    checks: [userInput],
    reportedBy: "limits/user-input",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/preview$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { userInput?: string } | undefined;
      if (b?.userInput && b.userInput.trim().length > 2000)
        return next(withBody(copy, { ...b, userInput: b.userInput.trim().slice(0, 2000) }));
      return next(copy);
    },
  },
  {
    name: "API key name of 101 characters accepted",
    checks: [keyName],
    reportedBy: "limits/api-key-name",
    fault: async (req, next) => {
      if (!is(req, "POST", /\/api-keys$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { name?: unknown } | undefined;
      if (typeof b?.name === "string" && b.name.trim().length > 100)
        return next(withBody(copy, { name: b.name.trim().slice(0, 100) }));
      return next(copy);
    },
  },
  {
    name: "a body of exactly 64 KiB refused with 413",
    checks: [bodySizes],
    reportedBy: "limits/body-size",
    fault: async (req, next) => {
      if (Number(req.headers.get("content-length")) === 65536)
        return envelope(413, "Payload Too Large", pathOf(req));
      return next(req);
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
    name: "pagination limit 0 accepted",
    checks: [pagination],
    reportedBy: "limits/pagination",
    fault: async (req, next) => {
      const url = new URL(req.url);
      if (url.searchParams.get("limit") === "0") url.searchParams.set("limit", "1");
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  },
  {
    name: "a removed member stays in Formation subgroups",
    checks: [membersModel],
    reportedBy: "stateful/members",
    fault: async (req, next, env) => {
      const removed = (env.memory.get("removed") as Set<string> | undefined) ?? new Set<string>();
      env.memory.set("removed", removed);
      const m = /\/members\/([0-9a-f-]{36})$/.exec(pathOf(req));
      if (req.method === "DELETE" && m) removed.add(m[1] as string);
      const res = await next(req);
      if (req.method === "GET" && /\/formations\/[0-9a-f-]{36}$/.test(pathOf(req)) && removed.size > 0)
        return editJson(res, (b) => {
          b?.data?.subgroups?.[0]?.members?.push(
            ...[...removed].map((mindId) => ({ mindId, confidence: 0.5 })),
          );
        });
      return res;
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
    name: "filter mindIds not sorted",
    checks: [facets],
    reportedBy: "domain/filter-facets",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/filter-attributes$/)
        ? editJson(res, (b) => {
            b?.data?.mindIds?.reverse();
          })
        : res;
    },
  },
  {
    name: "filters of 51 values accepted",
    checks: [filterLimits],
    reportedBy: "limits/filters",
    fault: async (req, next) => {
      const url = new URL(req.url);
      const f = url.searchParams.get("filters");
      if (f?.includes('"C50"')) url.searchParams.set("filters", f.replace(',"C50"', ""));
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  },
  {
    name: "129-character idempotency key honoured (not ignored)",
    checks: [duplicateLimits],
    reportedBy: "limits/duplicate",
    fault: async (req, next) => {
      const key = req.headers.get("x-service-idempotency-key");
      if (!key || key.length <= 128) return next(req);
      const headers = new Headers(req.headers);
      headers.set("x-service-idempotency-key", key.slice(0, 128));
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  },
  {
    name: "a private Formation visible to another collaborator",
    checks: [formationVisibility],
    reportedBy: "domain/formation-visibility",
    fault: async (req, next, env) => {
      const f = env.sim.manifest().formations.teammatePrivate;
      if (f && req.method === "GET" && pathOf(req).endsWith(f.id)) {
        const headers = new Headers(req.headers);
        headers.set("authorization", `Bearer ${env.sim.manifest().users.teammate?.apiKey}`);
        return next(new Request(req.url, { headers }));
      }
      return next(req);
    },
  },
  {
    name: "a non-owner can delete an API key of another account (404 replaced by 204)",
    checks: [keyAccess],
    reportedBy: "domain/api-key-access",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "DELETE", /\/api-keys\//) && res.status === 404
        ? new Response(null, { status: 204, headers: res.headers })
        : res;
    },
  },
  {
    name: "a deleted Formation is still readable",
    checks: [formationsModel],
    reportedBy: "stateful/formations",
    fault: async (req, next) => {
      if (req.method === "DELETE" && /\/formations\/[0-9a-f-]{36}$/.test(pathOf(req)))
        return new Response(null, {
          status: 204,
          headers: {
            "ratelimit-limit": "300",
            "ratelimit-remaining": "299",
            "cache-control": "private, no-store",
          },
        });
      return next(req);
    },
  },
  {
    name: "cancelling a checkout session leaves it open",
    checks: [checkoutModel],
    reportedBy: "stateful/checkout",
    fault: async (req, next) => {
      if (is(req, "POST", /\/cancel$/))
        return next(new Request(req.url.replace(/\/cancel$/, ""), { method: "GET", headers: req.headers }));
      return next(req);
    },
  },
  {
    name: "recalibrate replay repeats the work (202 again)",
    checks: [recalibrateReplay],
    reportedBy: "domain/recalibrate-replay",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/recalibrate$/) && res.status === 200 ? withStatus(res, 202) : res;
    },
  },
  {
    name: "validation report export without a scored validation answered 200",
    checks: [exportsRules],
    reportedBy: "domain/exports",
    fault: async (req, next) => {
      const res = await next(req);
      return res.status === 409
        ? editJson(withStatus(res, 200), () => ({ data: { status: "queued" } }))
        : res;
    },
  },
  {
    name: "collaborators listed newest first",
    checks: [collaborators],
    reportedBy: "domain/collaborators",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/collaborators$/)
        ? editJson(res, (b) => {
            b?.data?.reverse();
            if (b?.data?.[0]) b.data[0].joinedAt = "2030-01-01T00:00:00.000Z";
          })
        : res;
    },
  },
  {
    name: "PUT does not trim the name",
    checks: [updateRules],
    reportedBy: "domain/audience-update",
    fault: async (req, next) => {
      const res = await next(req);
      return req.method === "PUT" && res.status === 200
        ? editJson(res, (b) => {
            b.data.name = ` ${b.data.name} `;
          })
        : res;
    },
  },
  {
    name: "progress reports failed members",
    checks: [progressRules],
    reportedBy: "domain/progress",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/progress$/)
        ? editJson(res, (b) => {
            if (b?.data?.readiness) b.data.readiness.failed = 1;
          })
        : res;
    },
  },
  {
    name: "self-deleted key keeps working",
    checks: [selfDelete],
    reportedBy: "domain/api-key-self-delete",
    fault: async (req, next) =>
      is(req, "DELETE", /\/api-keys\//)
        ? new Response(null, {
            status: 204,
            headers: { "ratelimit-limit": "300", "ratelimit-remaining": "299" },
          })
        : next(req),
  },
  {
    name: "following a private Audience answered 200 instead of 404",
    checks: [followRules],
    reportedBy: "domain/follow",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/follow$/) && res.status === 404
        ? editJson(withStatus(res, 200), () => ({ data: { following: true } }))
        : res;
    },
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
    name: "GET /auth/me names another user",
    checks: [identity],
    reportedBy: "domain/identity",
    fault: async (req, next, env) => {
      const res = await next(req);
      const other = Object.entries(env.sim.manifest().users).find(([h]) => h !== callerOf(req, env))?.[1];
      return is(req, "GET", /\/auth\/me$/) && res.status === 200 && other
        ? editJson(res, (b) => ({ ...b, id: other.id }))
        : res;
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
    name: "filter attributes of an Audience over 5000 Minds not marked truncated",
    checks: [largeAudience],
    reportedBy: "domain/filter-truncation",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "GET", /\/filter-attributes$/)
        ? editJson(res, (b) => {
            if (b?.data && b.data.totalMinds > 5000) b.data.truncated = false;
          })
        : res;
    },
  },
  {
    name: "preview of an Audience over 1000 members without hardCapExceeded",
    checks: [largePreview],
    reportedBy: "domain/preview-hard-cap",
    fault: async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/formations\/preview$/) &&
        res.headers.get("content-type")?.includes("application/json")
        ? editJson(res, (b) => {
            if (b?.data && "hardCapExceeded" in b.data) b.data.hardCapExceeded = false;
          })
        : res;
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
    name: "the recalibration statusUrl is not served",
    checks: [recalibrationStatus],
    reportedBy: "domain/recalibration-status",
    fault: async (req, next) =>
      req.method === "GET" && /\/recalibrate\/operations\//.test(pathOf(req))
        ? envelope(404, "Not Found", pathOf(req))
        : next(req),
  },
  {
    name: "the recalibration statusUrl stays queued while the operation runs",
    checks: [recalibrationStatus],
    reportedBy: "domain/recalibration-status",
    fault: async (req, next) => {
      const res = await next(req);
      return req.method === "GET" && /\/recalibrate\/operations\//.test(pathOf(req))
        ? editJson(res, (b) => {
            if (b?.data?.operation)
              Object.assign(b.data.operation, { status: "queued", progress: 0, result: null });
          })
        : res;
    },
  },
  {
    name: "the recalibration statusUrl is readable by an outsider",
    checks: [recalibrationStatus],
    reportedBy: "domain/recalibration-status",
    fault: async (req, next, env) => {
      if (
        req.method === "GET" &&
        /\/recalibrate\/operations\//.test(pathOf(req)) &&
        callerOf(req, env) === "outsider"
      ) {
        const owner = env.sim.manifest().users.teammate?.apiKey ?? "";
        const headers = new Headers(req.headers);
        headers.set("authorization", `Bearer ${owner}`);
        return next(new Request(req.url, { method: "GET", headers }));
      }
      return next(req);
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
