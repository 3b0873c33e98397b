/**
 * More faults the sentence index asked for (see faults-sentences.ts): keys, plan limits, the wire, the
 * cascade of a deleted Audience, Formations and previews, progress, exports and checkout.
 */

import { MAX_REQUEST_TARGET_BYTES } from "../../src/contract/request-size.ts";
import { keyAccess, keySecrets } from "../checks/api-keys.ts";
import { checkout } from "../checks/checkout.ts";
import { collaboratorRemoval } from "../checks/collaborators.ts";
import { deleteCascade } from "../checks/delete-cascade.ts";
import { duplicateReplay } from "../checks/duplicate.ts";
import { exportsRules } from "../checks/exports.ts";
import { facets } from "../checks/filter-attributes.ts";
import { formationRefusals, formationVisibility, previewStream } from "../checks/formations.ts";
import { validReads } from "../checks/generic.ts";
import { filterLimits, subgroupCounts } from "../checks/limits.ts";
import { membersRules, planLimit } from "../checks/members.ts";
import { progressRules } from "../checks/progress.ts";
import { recalibrationStatus } from "../checks/recalibration.ts";
import { researchStages } from "../checks/timelines.ts";
import { requestSize } from "../checks/wire.ts";
import { world } from "../checks/world.ts";
import { schemaAt } from "../lib/description/contract.ts";
import type { FaultCase } from "./fault-kit.ts";
import { AUD, asCaller, behind, bodyOf, casesOf, editWhen, is, on, withBody } from "./fault-kit.ts";
import { resentAs } from "./faults-sentences.ts";
import { answer, callerOf, editJson, envelope, type Fault, pathOf } from "./harness.ts";

type Json = Record<string, unknown>;

/** A refused request sent again with its JSON body changed by `fix`, when `refused` says so. */
const retried =
  (
    method: string,
    re: RegExp,
    refused: (status: number, json: Json) => boolean,
    fix: (json: Json) => Json,
  ): Fault =>
  async (req, next) => {
    if (!is(req, method, re)) return next(req);
    const { req: again, json } = await bodyOf(req);
    const res = await next(again);
    const j = (json ?? {}) as Json;
    return refused(res.status, j) ? next(withBody(again, fix(j))) : res;
  };

/** The same request, its body given again as read, with one header changed. */
function withHeader(req: Request, name: string, value: string, body: string): Request {
  const headers = new Headers(req.headers);
  headers.set(name, value);
  return new Request(req.url, { method: req.method, headers, ...(body ? { body } : {}) });
}

/** A checkout body with both consents given: what a fault sends again in place of a refused one. */
const withConsent = (j: Json): Json => ({
  ...j,
  metadata: { ...(j.metadata as Json), legalAcceptance: { termsAccepted: true, withdrawalConsent: true } },
});

const PROGRESS = new RegExp(`/audiences/${AUD}/progress$`);
const editProgress = (edit: (d: Json & { readiness: Json; members: { update: Json }[] }) => void) =>
  editWhen(on("GET", PROGRESS, 200), (b) => {
    if (b?.data?.readiness) edit(b.data);
  });
const regions = new Intl.DisplayNames(["en"], { type: "region" });

export const SENTENCE_FAULTS_2: FaultCase[] = [
  ...casesOf(keyAccess, {
    "API keys listed for an account without an active subscription": async (req, next, env) =>
      is(req, "GET", /\/api-keys$/) && callerOf(req, env) === "outsider" ? answer(200, []) : next(req),
    "an SSO-linked account can create an API key": async (req, next, env) =>
      is(req, "POST", /\/api-keys$/) && callerOf(req, env) === "sso"
        ? answer(201, {
            id: `c${"0".repeat(24)}`,
            name: null,
            key: "service_conformancefault",
            createdAt: "2026-01-01T00:00:00.000Z",
          })
        : next(req),
  }),
  ...casesOf(keySecrets, "response/schema", {
    "an API key ID that is not a cuid": editWhen(on("GET", /\/api-keys$/, 200), (b) => {
      if (Array.isArray(b)) for (const k of b) k.id = `key_${k.id}`;
    }),
  }),
  // Behind a plain node:http server that takes heads of any size, the long target reaches the fetch handler.
  ...behind(
    "node-large-heads",
    casesOf(requestSize, {
      "a 414's envelope names the request path in url": async (req, next) =>
        req.url.length > MAX_REQUEST_TARGET_BYTES ? envelope(414, "URI Too Long", pathOf(req)) : next(req),
      "a request target past twice the longest allowed is routed (no 414)": (req, next) => next(req),
    }),
  ),
  ...casesOf(planLimit, "response/schema", {
    "a PlanLimitError names a limitType the contract does not list": editWhen(
      (_req, res) => res.status === 403,
      (b) => {
        if (b?.data?.code === "PLAN_LIMIT") b.data.limitType = "members";
      },
    ),
    "a PlanLimitError names the Individual plan `individual`, not `premium`": editWhen(
      (_req, res) => res.status === 403,
      (b) => {
        if (b?.data?.code === "PLAN_LIMIT") b.data.currentPlan = "individual";
      },
    ),
  }),
  ...casesOf(deleteCascade, {
    "deleting an Audience keeps the Minds it alone held": async (req, next, env) => {
      const m = new RegExp(`/audiences/(${AUD})$`).exec(pathOf(req));
      const gone = (env.memory.get("gone") ?? new Set()) as Set<string>;
      env.memory.set("gone", gone);
      if (req.method === "DELETE" && m) {
        const read = await next(asCaller(req, req.url));
        for (const x of read.ok ? ((await read.json()).data?.minds ?? []) : []) gone.add(x.id);
        return next(req);
      }
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const id = (json as { mindId?: string } | undefined)?.mindId;
      return id && gone.has(id) ? answer(200, { data: { added: 1 } }) : next(again);
    },
    "deleting an Audience deletes its Minds that another Audience holds": async (req, next, env) => {
      const added = (env.memory.get("added") ?? []) as [string, string][];
      env.memory.set("added", added);
      const m = new RegExp(`^(.*/audiences/)(${AUD})(/members)?$`).exec(pathOf(req));
      if (m && req.method === "POST" && m[3]) {
        const { req: again, json } = await bodyOf(req);
        const id = (json as { mindId?: string } | undefined)?.mindId;
        if (id) added.push([m[2] as string, id]);
        return next(again);
      }
      if (!m || m[3] || req.method !== "DELETE") return next(req);
      const read = await next(asCaller(req, req.url));
      const minds = new Set(read.ok ? ((await read.json()).data?.minds ?? []).map((x: Json) => x.id) : []);
      const res = await next(req);
      for (const [audience, mind] of added)
        if (audience !== m[2] && minds.has(mind))
          await next(asCaller(req, new URL(`${m[1]}${audience}/members/${mind}`, req.url), "DELETE"));
      return res;
    },
  }),
  ...casesOf(world, {
    "an Audience admin may remove members": resentAs(
      "DELETE",
      /\/members\/[^/]+$/,
      404,
      (h) => h !== "owner",
    ),
    "an added Mind is never sorted into the Audience's ready Formations": async (req, next, env) => {
      const late = (env.memory.get("late") ?? new Set()) as Set<string>;
      env.memory.set("late", late);
      if (is(req, "POST", /\/members$/)) {
        const { req: again, json } = await bodyOf(req);
        const j = (json ?? {}) as { mindId?: string; mindIds?: string[] };
        for (const id of j.mindId ? [j.mindId] : (j.mindIds ?? [])) late.add(id);
        return next(again);
      }
      const res = await next(req);
      if (!is(req, "GET", /\/formations\/[^/]+$/) || res.status !== 200) return res;
      return editJson(res, (b) => {
        const text = JSON.stringify(b?.data?.subgroups ?? []);
        if ([...late].some((id) => text.includes(id)))
          b.data.subgroups = JSON.parse(
            [...late].reduce((t, id) => t.replaceAll(id, "00000000-0000-4000-8000-000000000000"), text),
          );
      });
    },
  }),
  ...casesOf(formationVisibility, {
    // The private Formation is the teammate's own: the owner's refused recompute is made as its creator.
    "another collaborator may recompute a private Formation": resentAs(
      "POST",
      /\/recompute$/,
      404,
      () => true,
      "teammate",
    ),
  }),
  ...casesOf(duplicateReplay, {
    "a public viewer may duplicate the Audience": resentAs(
      "POST",
      /\/duplicate$/,
      403,
      (h) => h === "outsider",
      "publisher",
    ),
  }),
  ...casesOf(collaboratorRemoval, {
    "removing a collaborator twice answers 200 again": async (req, next) => {
      const res = await next(req);
      return req.method === "DELETE" && /\/collaborators\//.test(pathOf(req)) && res.status === 404
        ? answer(200, { data: { success: true } })
        : res;
    },
  }),
  ...casesOf(membersRules, {
    "adding a Mind that is already a member is refused": async (req, next) => {
      if (!is(req, "POST", /\/members$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const j = (json ?? {}) as { mindId?: string; mindIds?: string[] };
      const read = await next(asCaller(req, req.url.replace(/\/members$/, "")));
      const members = JSON.stringify(read.ok ? ((await read.json()).data?.minds ?? []) : []);
      const ids = j.mindId ? [j.mindId] : (j.mindIds ?? []);
      return ids.length > 0 && ids.some((id) => members.includes(id))
        ? envelope(409, "Mind already in the Audience", pathOf(req))
        : next(again);
    },
  }),
  ...casesOf(filterLimits, {
    "filters naming an attribute the contract does not list accepted": async (req, next) => {
      const url = new URL(req.url);
      const filters = url.searchParams.get("filters");
      if (req.method !== "GET" || !/\/filter-attributes$/.test(url.pathname) || !filters) return next(req);
      const res = await next(req);
      if (res.status !== 400) return res;
      try {
        const known = schemaAt("#/components/schemas/FilterAttributeKey").enum as string[];
        const parsed = JSON.parse(filters) as Json;
        const kept = Object.fromEntries(Object.entries(parsed).filter(([k]) => known.includes(k)));
        if (Object.keys(kept).length === Object.keys(parsed).length) return res;
        url.searchParams.set("filters", JSON.stringify(kept));
        return next(new Request(url, { headers: req.headers }));
      } catch {
        return res;
      }
    },
  }),
  ...casesOf(facets, {
    "country facet values given as country names, not ISO codes": editWhen(
      on("GET", /\/filter-attributes$/, 200),
      (b) => {
        for (const f of b?.data?.facets ?? [])
          if (f.key === "country") for (const v of f.values) v.value = regions.of(v.value) ?? v.value;
      },
    ),
  }),
  ...casesOf(formationRefusals, {
    "a Formation of an Audience with no members is made": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/formations$/) || res.status !== 400) return res;
      const b = await res.clone().json();
      return /no members/.test(b?.statusMessage ?? "")
        ? answer(200, {
            data: {
              id: "00000000-0000-4000-8000-000000000001",
              name: "x",
              status: "building",
              progress: null,
              hypothesis: {},
              subgroups: [],
            },
          })
        : res;
    },
  }),
  ...casesOf(subgroupCounts, {
    "two subgroups with the same id accepted": retried(
      "POST",
      /\/formations$/,
      (status, j) => {
        const ids =
          ((j.hypothesis as Json | undefined)?.subgroups as Json[] | undefined)?.map((x) => x.id) ?? [];
        return status === 400 && new Set(ids).size < ids.length;
      },
      (j) => {
        const h = j.hypothesis as { subgroups: Json[] };
        return {
          ...j,
          hypothesis: { ...h, subgroups: h.subgroups.map((x, i) => ({ ...x, id: `${x.id}-${i}` })) },
        };
      },
    ),
    "sixteen subgroups accepted": retried(
      "POST",
      /\/formations$/,
      (status, j) =>
        status === 400 &&
        ((j.hypothesis as Json | undefined)?.subgroups as unknown[] | undefined)?.length === 16,
      (j) => {
        const h = j.hypothesis as { subgroups: Json[] };
        return { ...j, hypothesis: { ...h, subgroups: h.subgroups.slice(0, 15) } };
      },
    ),
  }),
  ...casesOf(previewStream, {
    "Accept quality weights ignored (the first type listed wins)": async (req, next) => {
      const accept = req.headers.get("accept");
      if (!is(req, "POST", /\/formations\/preview$/) || !accept) return next(req);
      return next(withHeader(req, "accept", accept.replace(/;\s*q=[0-9.]+/g, ""), await req.text()));
    },
    "a preview stream line that is not JSON": async (req, next) => {
      const res = await next(req);
      if (
        !is(req, "POST", /\/formations\/preview$/) ||
        !(res.headers.get("content-type") ?? "").includes("ndjson")
      )
        return res;
      return new Response(`event: meta\n${await res.text()}`, res);
    },
  }),
  ...casesOf(researchStages, {
    "research reports phase researched while it runs": editProgress((d) => {
      const r = d.research as Json | undefined;
      if (r && r.stage !== "done" && r.status !== "failed") r.phase = "researched";
    }),
    "completed research reports phase researching": editProgress((d) => {
      const r = d.research as Json | undefined;
      if (r && r.status === "completed") r.phase = "researching";
    }),
    "isReady false while research runs": editProgress((d) => {
      const stage = (d.research as Json | undefined)?.stage;
      if (stage && stage !== "done") {
        d.readiness.isReady = false;
        d.readiness.fullyTrained = false;
      }
    }),
  }),
  ...casesOf(progressRules, {
    "a member being repaired shows trainingStatus running": editProgress((d) => {
      const m = d.members.find((x) => x.update.trainingStatus === "running");
      if (m) m.update.beingRepaired = true;
    }),
    "readiness.training leaves out members in training": editProgress((d) => {
      d.readiness.training = 0;
    }),
    "startsNow true while members train": editProgress((d) => {
      d.readiness.startsNow = true;
    }),
    "startsNow false although nothing trains and every member can chat": editProgress((d) => {
      if (d.readiness.training === 0 && d.readiness.isReady === true) d.readiness.startsNow = false;
    }),
    "leftOut counts none of the members still in training": editProgress((d) => {
      d.readiness.leftOut = 0;
    }),
    "fullyTrained while members still learn": editProgress((d) => {
      d.readiness.fullyTrained = d.readiness.isReady;
    }),
  }),
  ...casesOf(validReads, "response/schema", {
    "reconciledAt given as an ISO date-time, not epoch milliseconds": editProgress((d) => {
      if (typeof d.reconciledAt === "number") d.reconciledAt = new Date(d.reconciledAt).toISOString();
    }),
  }),
  ...casesOf(recalibrationStatus, {
    "calibration.active false while a recalibration runs": editWhen(
      on("GET", new RegExp(`/audiences/${AUD}$`), 200),
      (b) => {
        if (b?.data?.calibration) b.data.calibration.active = false;
      },
    ),
  }),
  ...casesOf(exportsRules, {
    "`markdown` refused as an export format": async (req, next) => {
      if (!is(req, "POST", /\/export$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      return (json as { format?: string } | undefined)?.format === "markdown"
        ? envelope(400, "Invalid export format", pathOf(req))
        : next(again);
    },
  }),
  ...casesOf(checkout, {
    "a session with two line items accepted": retried(
      "POST",
      /\/checkout_sessions$/,
      (status, j) => status === 400 && (j.line_items as unknown[] | undefined)?.length === 2,
      (j) => ({ ...j, line_items: (j.line_items as unknown[]).slice(0, 1) }),
    ),
    "a subscription sold without legal acceptance": retried(
      "POST",
      /\/checkout_sessions$/,
      (status, j) => status === 400 && !(j.metadata as Json | undefined)?.legalAcceptance,
      withConsent,
    ),
    "legal acceptance without withdrawal consent accepted": retried(
      "POST",
      /\/checkout_sessions$/,
      (status, j) => {
        const l = (j.metadata as Json | undefined)?.legalAcceptance as Json | undefined;
        return (
          status === 400 && l !== undefined && (l.termsAccepted === false || l.withdrawalConsent === false)
        );
      },
      withConsent,
    ),
    "a changed unit_amount accepted (201, not 409)": retried(
      "POST",
      /\/checkout_sessions$/,
      (status) => status === 409,
      (j) => ({ ...j, line_items: (j.line_items as Json[]).map(({ unit_amount: _, ...rest }) => rest) }),
    ),
    "an Idempotency-Key of 129 characters accepted": async (req, next) => {
      const key = req.headers.get("idempotency-key") ?? "";
      if (!is(req, "POST", /\/checkout_sessions$/) || key.length <= 128) return next(req);
      return next(withHeader(req, "idempotency-key", key.slice(0, 128), await req.text()));
    },
  }),
];
