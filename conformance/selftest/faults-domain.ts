/**
 * Faults against the domain checks: rules of the API description that no schema states.
 */
import { LIMITS } from "../../src/contract/limits.ts";
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
import type { FaultCase } from "./fault-kit.ts";
import { AUD, bodyOf, casesOf, editWhen, is, on, servedLongAgo, withBody } from "./fault-kit.ts";
import { answer, callerOf, editJson, envelope, keyOf, pathOf, withStatus } from "./harness.ts";

export const DOMAIN_FAULTS: FaultCase[] = [
  ...casesOf(audienceDelete, {
    "a collaborator (not the owner) can delete the Audience": async (req, next, env) => {
      if (
        req.method === "DELETE" &&
        new RegExp(`/audiences/${AUD}$`).test(pathOf(req)) &&
        callerOf(req, env) === "admin"
      )
        return answer(204);
      return next(req);
    },
  }),
  ...casesOf(collaborators, {
    "a direct member can remove collaborators": async (req, next, env) => {
      if (req.method === "DELETE" && /\/collaborators\//.test(pathOf(req)) && callerOf(req, env) === "member")
        return answer(200, { data: { success: true } });
      return next(req);
    },
    "collaborators listed newest first": editWhen(on("GET", /\/collaborators$/), (b) => {
      b?.data?.reverse();
      if (b?.data?.[0]) b.data[0].joinedAt = "2030-01-01T00:00:00.000Z";
    }),
  }),
  ...casesOf(keySecrets, {
    "the secret `key` leaked in API key listings": async (req, next, env) => {
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
    "API key listing oldest first": editWhen(on("GET", /\/api-keys$/), (b) =>
      Array.isArray(b) ? [...b].reverse() : b,
    ),
  }),
  ...casesOf(membersRules, {
    "mindIds used although mindId is present": async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as { mindId?: string; mindIds?: string[] } | undefined;
      if (b?.mindId && b.mindIds) return next(withBody(copy, { mindIds: b.mindIds }));
      return next(copy);
    },
    "`added` counts new memberships instead of distinct IDs": editWhen(on("POST", /\/members$/, 200), (b) => {
      b.data.added = Math.max(1, b.data.added - 1);
    }),
  }),
  ...casesOf(previewStream, {
    "NDJSON stream without `done`": async (req, next) => {
      const res = await next(req);
      if (!res.headers.get("content-type")?.includes("ndjson")) return res;
      const text = (await res.text())
        .split("\n")
        .filter((l) => l && !l.includes('"done"'))
        .join("\n");
      return new Response(`${text}\n`, { status: res.status, headers: res.headers });
    },
    "NDJSON events out of order (status before meta)": async (req, next) => {
      const res = await next(req);
      if (!res.headers.get("content-type")?.includes("ndjson")) return res;
      const lines = (await res.text()).split("\n").filter(Boolean);
      [lines[0], lines[1]] = [lines[1] as string, lines[0] as string];
      return new Response(`${lines.join("\n")}\n`, { status: res.status, headers: res.headers });
    },
    "no 406 when Accept allows nothing supported": async (req, next) => {
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
  }),
  ...casesOf(checkout, {
    "ACP create accepts extra top-level properties": async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as Record<string, unknown> | undefined;
      if (b && "coupon" in b) {
        delete b.coupon;
        return next(withBody(copy, b));
      }
      return next(copy);
    },
    "ACP API-Version ignored": async (req, next) => {
      if (!req.headers.has("api-version")) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("api-version");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
  ...casesOf(duplicateReplay, {
    "duplicate replay makes a new copy": async (req, next) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("x-service-idempotency-key");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
  ...casesOf(facets, {
    "facet counts off by one": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/filter-attributes$/) || !new URL(req.url).searchParams.has("filters"))
        return res;
      return editJson(res, (b) => {
        for (const f of b.data.facets) for (const v of f.values) v.count += 1;
      });
    },
    "filter mindIds not sorted": editWhen(on("GET", /\/filter-attributes$/), (b) => {
      b?.data?.mindIds?.reverse();
    }),
  }),
  ...casesOf(formationPages, {
    "wrong pagination hasMore": editWhen(on("GET", /\/formations$/), (b) => {
      if (b.pagination) b.pagination.hasMore = !b.pagination.hasMore;
    }),
  }),
  ...casesOf(visibility, {
    "sharing fields shown to public viewers": editWhen(on("GET", new RegExp(`/audiences/${AUD}$`)), (b) => {
      if (b?.data && b.data.currentMemberRole === "public_viewer")
        Object.assign(b.data, {
          isSharedWithTeam: false,
          isLinkSharingEnabled: false,
          publicShareId: null,
        });
    }),
  }),
  ...casesOf(fileRedaction, {
    "uploaded-file URLs not redacted for Study viewers": async (req, next, env) => {
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
  }),
  ...casesOf(formationVisibility, {
    "a private Formation visible to another collaborator": async (req, next, env) => {
      const f = env.sim.manifest().formations.teammatePrivate;
      if (f && req.method === "GET" && pathOf(req).endsWith(f.id)) {
        const headers = new Headers(req.headers);
        headers.set("authorization", `Bearer ${env.sim.manifest().users.teammate?.apiKey}`);
        return next(new Request(req.url, { headers }));
      }
      return next(req);
    },
  }),
  ...casesOf(keyAccess, {
    "a non-owner can delete an API key of another account (404 replaced by 204)": async (req, next) => {
      const res = await next(req);
      return is(req, "DELETE", /\/api-keys\//) && res.status === 404
        ? new Response(null, { status: 204, headers: res.headers })
        : res;
    },
  }),
  ...casesOf(recalibrateReplay, {
    "recalibrate replay repeats the work (202 again)": async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/recalibrate$/) && res.status === 200 ? withStatus(res, 202) : res;
    },
  }),
  ...casesOf(exportsRules, {
    "validation report export without a scored validation answered 200": async (req, next) => {
      const res = await next(req);
      return res.status === 409
        ? editJson(withStatus(res, 200), () => ({ data: { status: "queued" } }))
        : res;
    },
    "a brief is not offered as pptx (400), one of the formats the description names for it": async (
      req,
      next,
    ) => {
      if (!is(req, "POST", /\/export$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = (json ?? {}) as { kind?: string; format?: string };
      return (b.kind ?? "brief") === "brief" && b.format === "pptx"
        ? envelope(400, "Format pptx is not offered for kind brief", pathOf(req))
        : next(copy);
    },
  }),
  ...casesOf(updateRules, {
    "PUT does not trim the name": async (req, next) => {
      const res = await next(req);
      return req.method === "PUT" && res.status === 200
        ? editJson(res, (b) => {
            b.data.name = ` ${b.data.name} `;
          })
        : res;
    },
  }),
  ...casesOf(progressRules, {
    "progress reports failed members": editWhen(on("GET", /\/progress$/), (b) => {
      if (b?.data?.readiness) b.data.readiness.failed = 1;
    }),
    // The summary counts only completed members as ready, while the rows say members still training can chat.
    "readiness leaves training members that can chat out of ready, isReady and learning": editWhen(
      on("GET", /\/progress$/),
      (b) => {
        const rows = (b?.data?.members ?? []) as {
          update: { readyToChat: boolean; trainingStatus: string };
        }[];
        if (!b?.data?.readiness) return;
        const ready = rows.filter(
          (m) => m.update.readyToChat && m.update.trainingStatus === "completed",
        ).length;
        Object.assign(b.data.readiness, { ready, isReady: ready === rows.length && ready > 0, learning: 0 });
      },
    ),
  }),
  ...casesOf(selfDelete, {
    "self-deleted key keeps working": async (req, next) =>
      is(req, "DELETE", /\/api-keys\//) ? answer(204) : next(req),
  }),
  ...casesOf(followRules, {
    "following a private Audience answered 200 instead of 404": async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/follow$/) && res.status === 404
        ? editJson(withStatus(res, 200), () => ({ data: { following: true } }))
        : res;
    },
  }),
  ...casesOf(identity, {
    "GET /auth/me names another user": async (req, next, env) => {
      const res = await next(req);
      const other = Object.entries(env.sim.manifest().users).find(([h]) => h !== callerOf(req, env))?.[1];
      return is(req, "GET", /\/auth\/me$/) && res.status === 200 && other
        ? editJson(res, (b) => ({ ...b, id: other.id }))
        : res;
    },
  }),
  ...casesOf(largeAudience, {
    "filter attributes of an Audience over the Minds read per request not marked truncated": editWhen(
      on("GET", /\/filter-attributes$/),
      (b) => {
        if (b?.data && b.data.totalMinds > LIMITS.mindsRead) b.data.truncated = false;
      },
    ),
  }),
  ...casesOf(largePreview, {
    "preview of an Audience past the hard cap without hardCapExceeded": async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/formations\/preview$/) &&
        res.headers.get("content-type")?.includes("application/json")
        ? editJson(res, (b) => {
            if (b?.data && "hardCapExceeded" in b.data) b.data.hardCapExceeded = false;
          })
        : res;
    },
  }),
  ...casesOf(recalibrationStatus, {
    "the recalibration statusUrl is not served": async (req, next) =>
      req.method === "GET" && /\/recalibrate\/operations\//.test(pathOf(req))
        ? envelope(404, "Not Found", pathOf(req))
        : next(req),
    "the recalibration statusUrl stays queued while the operation runs": async (req, next) => {
      const res = await next(req);
      return req.method === "GET" && /\/recalibrate\/operations\//.test(pathOf(req))
        ? editJson(res, (b) => {
            if (b?.data?.operation)
              Object.assign(b.data.operation, { status: "queued", progress: 0, result: null });
          })
        : res;
    },
    "a completed recalibration reads as running again ten seconds later": async (req, next, env) => {
      const res = await next(req);
      if (req.method !== "GET" || !/\/recalibrate\/operations\//.test(pathOf(req))) return res;
      return editJson(res, (b) => {
        const op = b?.data?.operation;
        if (op?.status === "completed" && servedLongAgo(env, pathOf(req)))
          Object.assign(op, { status: "running", progress: 50 });
      });
    },
    "the recalibration statusUrl is readable by an outsider": async (req, next, env) => {
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
  }),
];
