/**
 * Faults against the domain checks: rules of the API description that no schema states.
 */
import { identity, keyAccess, keySecrets, selfDelete } from "../checks/api-keys.ts";
import { audienceDelete, fileRedaction, followRules, updateRules, visibility } from "../checks/audiences.ts";
import { checkout } from "../checks/checkout.ts";
import { collaborators } from "../checks/collaborators.ts";
import { duplicateReplay } from "../checks/duplicate.ts";
import { exportsRules } from "../checks/exports.ts";
import { facets, largeAudience } from "../checks/filter-attributes.ts";
import { formationPages, formationVisibility, largePreview, previewStream } from "../checks/formations.ts";
import { membersRules } from "../checks/members.ts";
import { progressRules } from "../checks/progress.ts";
import { recalibrateReplay } from "../checks/recalibrate.ts";
import { recalibrationStatus } from "../checks/recalibration.ts";
import { AUD, bodyOf, type FaultCase, is, withBody } from "./fault-kit.ts";
import { callerOf, editJson, envelope, keyOf, pathOf, withStatus } from "./harness.ts";

export const DOMAIN_FAULTS: FaultCase[] = [
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
];
