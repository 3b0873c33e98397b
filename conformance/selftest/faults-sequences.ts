/**
 * Faults of the rules that need two calls outside the world model: a removal and the access after it, a
 * duplicate and what it holds, one account's spending and another's budget, a boundary approached from
 * below, a query variant and the read without it.
 */

import { LIMITS } from "../../src/contract/limits.ts";
import { caseChecks } from "../cases/index.ts";
import { keySecrets, selfDelete } from "../checks/api-keys.ts";
import { followRules, membersPreview } from "../checks/audiences.ts";
import { checkout } from "../checks/checkout.ts";
import { collaboratorRemoval } from "../checks/collaborators.ts";
import { duplicateContents, duplicatePlanLimit, duplicateReplay } from "../checks/duplicate.ts";
import { exportsRules } from "../checks/exports.ts";
import { facets } from "../checks/filter-attributes.ts";
import { formationRefusals } from "../checks/formations.ts";
import { keyName } from "../checks/limits.ts";
import { listCalls } from "../checks/list-calls.ts";
import { wrongMethod } from "../checks/methods.ts";
import { rateLimit } from "../checks/ratelimit.ts";
import { recalibrateOwnerOnly } from "../checks/recalibrate.ts";
import { memberCapBoundary, previewSoftWarn } from "../checks/thresholds.ts";
import { exportJob, researchStages } from "../checks/timelines.ts";
import { world } from "../checks/world.ts";
import type { CheckDef } from "../lib/running/context.ts";
import type { FaultCase } from "./fault-kit.ts";
import { asCaller, bodyOf, casesOf, editWhen, is, on, servedLongAgo, withBody } from "./fault-kit.ts";
import { as, editFormation, keyPerBody, remember, servedAsOwner } from "./faults-world.ts";
import { answer, callerOf, editJson, envelope, keyOf, pathOf, withHeaders } from "./harness.ts";

const UUID = "[0-9a-f-]{36}";

export const SEQUENCE_FAULTS: FaultCase[] = [
  ...casesOf(collaboratorRemoval, {
    // The owner's removal of a listed collaborator is acknowledged and dropped; anything else goes through.
    "a removed collaborator keeps access": async (req, next, env) => {
      const m = /^(.*\/collaborators)\/([^/]+)$/.exec(pathOf(req));
      if (req.method !== "DELETE" || !m || callerOf(req, env) !== "owner") return next(req);
      const list = await next(new Request(new URL(m[1] as string, req.url), { headers: req.headers }));
      const listed = ((await list.json()) as { data?: { userId: string }[] }).data ?? [];
      if (!listed.some((c) => c.userId === m[2])) return next(req);
      return answer(200, { data: { success: true } });
    },
  }),
  ...casesOf(wrongMethod, {
    "a wrong method falls through to another handler (PATCH taken as PUT)": async (req, next) =>
      req.method === "PATCH"
        ? next(new Request(req.url, { method: "PUT", headers: req.headers, body: await req.text() }))
        : next(req),
    "405 for a wrong method as plain text": async (req, next) => {
      const res = await next(req);
      return res.status === 405
        ? new Response("Method Not Allowed", {
            status: 405,
            headers: { "content-type": "text/plain", allow: res.headers.get("allow") ?? "" },
          })
        : res;
    },
    "405 without Allow": async (req, next) => withHeaders(await next(req), (h) => h.delete("allow")),
  }),
  ...casesOf(selfDelete, {
    "deleting another key also retires the key that asked (a rotation locks the account out)": async (
      req,
      next,
      env,
    ) => {
      const retired = remember(env, "retired-callers", () => new Set<string>());
      const caller = keyOf(req) ?? "";
      if (retired.has(caller)) return envelope(401, "Unauthorized", pathOf(req));
      const res = await next(req);
      if (is(req, "DELETE", /\/api-keys\/c[a-z0-9]{24}$/) && res.status === 204) {
        // Only when the key deleted is not the caller's own (the self-delete is right as it is).
        const me = await next(
          new Request(req.url.replace(/\/api-keys\/.*$/, "/auth/me"), { headers: req.headers }),
        );
        if (me.status === 200) retired.add(caller);
      }
      return res;
    },
  }),
  ...casesOf(keySecrets, {
    "a key's use never shows in the listing (lastUsedAt stays null)": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/api-keys$/) || res.status !== 200) return res;
      return editJson(res, (b) => {
        for (const k of b as { lastUsedAt: string | null }[]) k.lastUsedAt = null;
      });
    },
  }),
  ...casesOf(listCalls, {
    // A listing that touches every key of the account, as if each had made the request.
    "listing the keys marks every key used": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/api-keys$/) || res.status !== 200) return res;
      const now = new Date().toISOString();
      return editJson(res, (b) => {
        for (const k of b as { lastUsedAt: string | null }[]) k.lastUsedAt = now;
      });
    },
    "listing Formations rebuilds the first ready one": async (req, next) => {
      if (!is(req, "GET", /\/formations$/)) return next(req);
      const res = await next(req);
      const ready = ((await res.clone().json()) as { data?: { id: string; status: string }[] }).data?.find(
        (f) => f.status === "ready",
      );
      if (ready) {
        const url = new URL(req.url);
        url.pathname = `${url.pathname}/${ready.id}/recompute`;
        url.search = "";
        await next(new Request(url, { method: "POST", headers: req.headers }));
      }
      return res;
    },
    "listing collaborators saves the Audience (updatedAt moves)": async (req, next) => {
      if (!is(req, "GET", /\/collaborators$/)) return next(req);
      const detail = new URL(req.url.replace(/\/collaborators(\?.*)?$/, ""));
      const d = await next(new Request(detail, { headers: req.headers }));
      const name = ((await d.json()) as { data?: { name?: string } }).data?.name;
      if (name !== undefined) await next(asCaller(req, detail, "PUT", { name }));
      return next(req);
    },
  }),
  ...casesOf(duplicateReplay, {
    "duplicate with the same key and another name makes a second copy": keyPerBody(
      /\/duplicate$/,
      "x-service-idempotency-key",
      "name",
    ),
    "a copy made without a name keeps the original's name exactly": async (req, next) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const body = (json ?? {}) as Record<string, unknown>;
      if (typeof body.name === "string") return next(copy);
      const original = await next(new Request(req.url.replace(/\/duplicate$/, ""), { headers: req.headers }));
      const name = ((await original.json()) as { data?: { name?: string } }).data?.name;
      return next(name === undefined ? copy : withBody(copy, { ...body, name }));
    },
  }),
  ...casesOf(duplicateContents, {
    "a copy made while a recalibration runs is calibrating too (the running job copied)": async (
      req,
      next,
      env,
    ) => {
      const busy = remember(env, "recalibrating", () => new Set<string>());
      const res = await next(req);
      const path = pathOf(req);
      const id = new RegExp(`/audiences/(${UUID})`).exec(path)?.[1];
      if (is(req, "POST", /\/recalibrate$/) && res.status === 202 && id) busy.add(id);
      if (is(req, "POST", /\/duplicate$/) && res.status === 201 && id && busy.has(id))
        busy.add(((await res.clone().json()) as { data: { id: string } }).data.id);
      if (req.method !== "GET" || !id || !busy.has(id) || !new RegExp(`/audiences/${UUID}$`).test(path))
        return res;
      return editJson(res, (b) => {
        if (b?.data?.calibration) b.data.calibration.active = true;
      });
    },
    "a duplicate keeps team sharing and the public link": async (req, next, env) => {
      const copies = remember(env, "copies", () => new Set<string>());
      const res = await next(req);
      if (is(req, "POST", /\/duplicate$/) && res.status === 201)
        copies.add(((await res.clone().json()) as { data: { id: string } }).data.id);
      const m = new RegExp(`/audiences/(${UUID})$`).exec(pathOf(req));
      if (req.method !== "GET" || !m || !copies.has(m[1] as string)) return res;
      return editJson(res, (b) => {
        Object.assign(b.data, {
          isSharedWithTeam: true,
          isLinkSharingEnabled: true,
          publicShareId: "shr_copied",
        });
      });
    },
    "a duplicate holds the original's Minds, not copies": async (req, next, env) => {
      const copies = remember(env, "copies", () => new Set<string>());
      const originals = remember(env, "originalMinds", () => new Map<string, unknown>());
      const res = await next(req);
      if (is(req, "POST", /\/duplicate$/) && res.status === 201)
        copies.add(((await res.clone().json()) as { data: { id: string } }).data.id);
      const m = new RegExp(`/audiences/(${UUID})$`).exec(pathOf(req));
      if (req.method !== "GET" || !m || res.status !== 200) return res;
      if (!copies.has(m[1] as string)) {
        originals.set("last", ((await res.clone().json()) as { data: { minds: unknown } }).data.minds);
        return res;
      }
      return editJson(res, (b) => {
        b.data.minds = originals.get("last") ?? b.data.minds;
      });
    },
    "a duplicate idempotency key replays another caller's copy": async (req, next, env) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const seen = remember(env, "dupKeys", () => new Map<string, string>());
      const key = req.headers.get("x-service-idempotency-key") ?? "";
      const hit = seen.get(key);
      if (hit) return new Response(hit, { status: 200, headers: { "content-type": "application/json" } });
      const res = await next(req);
      if (res.status === 201 && key) seen.set(key, await res.clone().text());
      return res;
    },
  }),
  ...casesOf(caseChecks.find((c) => c.name === "cases/lifecycles") as CheckDef, {
    "Formations seeded when the list is read at an offset past 0": async (req, next) => {
      // The first page is read (and seeds) before any page past it is answered.
      const url = new URL(req.url);
      const offset = Number(url.searchParams.get("offset") ?? 0);
      if (req.method === "GET" && /\/formations$/.test(url.pathname) && offset > 0) {
        url.searchParams.delete("offset");
        await next(new Request(url, { headers: req.headers }));
      }
      return next(req);
    },
  }),
  ...casesOf(rateLimit, {
    "RateLimit-Remaining counts every account's requests": async (req, next, env) => {
      const used = remember(env, "used", () => new Map<string, number>());
      const res = await next(req);
      const limit = Number(res.headers.get("ratelimit-limit"));
      const left = Number(res.headers.get("ratelimit-remaining"));
      if (!Number.isFinite(limit) || !Number.isFinite(left) || res.status === 429) return res;
      used.set(keyOf(req) ?? "", limit - left);
      const all = [...used.values()].reduce((a, b) => a + b, 0);
      return withHeaders(res, (h) => h.set("ratelimit-remaining", String(Math.max(0, limit - all))));
    },
    "Retry-After: 0 on a 429 (retry at once, and be refused again)": async (req, next) => {
      const res = await next(req);
      return res.status === 429 ? withHeaders(res, (h) => h.set("retry-after", "0")) : res;
    },
    "RateLimit-Remaining one too high on every served request": async (req, next) => {
      const res = await next(req);
      const left = Number(res.headers.get("ratelimit-remaining"));
      if (res.status === 429 || !Number.isFinite(left)) return res;
      return withHeaders(res, (h) => h.set("ratelimit-remaining", String(left + 1)));
    },
    "RateLimit-Remaining rises within a window (every third request shows more left)": async (
      req,
      next,
      env,
    ) => {
      const res = await next(req);
      const left = Number(res.headers.get("ratelimit-remaining"));
      const limit = Number(res.headers.get("ratelimit-limit"));
      const n = remember(env, "served", () => ({ count: 0 }));
      if (res.status === 429 || !Number.isFinite(left) || ++n.count % 3 !== 0 || left + 2 >= limit - 1)
        return res;
      return withHeaders(res, (h) => h.set("ratelimit-remaining", String(left + 2)));
    },
    "every key counts a window of its own (an account's other keys do not spend it)": async (
      req,
      next,
      env,
    ) => {
      // The simulator counts the account; this server counts each key, and lets a key through (and says
      // what it has left) by its own count, whatever the account spent.
      const counts = remember(env, "perKey", () => new Map<string, { window: number; n: number }>());
      const res = await next(req);
      const limit = Number(res.headers.get("ratelimit-limit"));
      if (!Number.isFinite(limit)) return res;
      const window = Math.floor(env.sim.clock.now() / 60_000);
      const key = keyOf(req) ?? "";
      const c = counts.get(key);
      const n = c && c.window === window ? c.n + 1 : 1;
      counts.set(key, { window, n });
      if (n > limit) return res;
      const headers = { "ratelimit-limit": String(limit), "ratelimit-remaining": String(limit - n) };
      if (res.status !== 429)
        return withHeaders(res, (h) => h.set("ratelimit-remaining", headers["ratelimit-remaining"]));
      const who = callerOf(req, env) ?? "member";
      return new Response(JSON.stringify({ id: env.sim.manifest().users[who]?.id }), {
        status: 200,
        headers: { "content-type": "application/json", ...headers },
      });
    },
    "the rate-limit budget is per key, not per account": async (req, next, env) => {
      // Every key spends its own budget: a second key of a refused account is let through.
      const refused = remember(env, "refusedKeys", () => new Set<string>());
      const res = await next(req);
      const key = keyOf(req) ?? "";
      if (res.status !== 429) return res;
      if (refused.size === 0 || refused.has(key)) {
        refused.add(key);
        return res;
      }
      return new Response(JSON.stringify({ id: env.sim.manifest().users.member?.id }), {
        status: 200,
        headers: { "content-type": "application/json", "ratelimit-limit": "5", "ratelimit-remaining": "4" },
      });
    },
  }),
  ...casesOf(memberCapBoundary, {
    "the member that reaches the cap is refused": async (req, next, env) => {
      const shrunk = remember(env, "shrunk", () => new Set<string>());
      const m = new RegExp(`/audiences/(${UUID})/members`).exec(pathOf(req));
      if (m && req.method === "DELETE") shrunk.add(m[1] as string);
      if (m && req.method === "POST" && shrunk.delete(m[1] as string))
        return envelope(403, "Individual plan limit reached", pathOf(req), {
          data: {
            code: "PLAN_LIMIT",
            limitType: "groupMembers",
            currentPlan: "premium",
            limit: 100,
            current: 99,
          },
        });
      return next(req);
    },
  }),
  ...casesOf(previewSoftWarn, {
    "softWarn only above its threshold, not from it": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/formations\/preview$/)) return res;
      return editJson(res, (b) => {
        if (b?.data) b.data.softWarn = b.data.memberCount > LIMITS.previewSoftWarnFrom;
      });
    },
  }),
  ...casesOf(membersPreview, {
    "members=preview ignored (the complete detail)": async (req, next) => {
      const url = new URL(req.url);
      if (!url.searchParams.has("members")) return next(req);
      url.searchParams.delete("members");
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(facets, {
    "facets ignore the selection: every facet counts the whole Audience": async (req, next) => {
      const url = new URL(req.url);
      if (!is(req, "GET", /\/filter-attributes$/) || !url.searchParams.has("filters")) return next(req);
      const all = new URL(url);
      all.searchParams.delete("filters");
      const whole = await (await next(new Request(all, { headers: req.headers }))).json();
      return editJson(await next(req), (b) => {
        if (b?.data && whole?.data?.facets) b.data.facets = whole.data.facets;
      });
    },
    // The facet of a selected attribute counted over the whole selection, its own included: only the
    // selected values keep a count, so a client cannot show what widening the selection would add.
    "a selected attribute's facet counts the whole selection, not every other attribute's": async (
      req,
      next,
    ) => {
      const url = new URL(req.url);
      const raw = url.searchParams.get("filters");
      if (!is(req, "GET", /\/filter-attributes$/) || !raw) return next(req);
      let f: Record<string, unknown>;
      try {
        f = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return next(req);
      }
      return editJson(await next(req), (b) => {
        for (const facet of b?.data?.facets ?? []) {
          const sel = f[facet.key];
          if (sel === undefined) continue;
          facet.values = Array.isArray(sel)
            ? facet.values.filter((v: { value: string }) => sel.includes(v.value))
            : [];
          if (sel !== null) facet.unknownCount = 0;
        }
      });
    },
    "a null filter value selects the Minds with any value instead of those with none": async (req, next) => {
      const url = new URL(req.url);
      const raw = url.searchParams.get("filters");
      let f: Record<string, unknown>;
      try {
        f = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return next(req);
      }
      const nulls = Object.keys(f).filter((k) => f[k] === null);
      if (nulls.length === 0) return next(req);
      const without = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== null));
      const all = new URL(url);
      all.searchParams.set("filters", JSON.stringify(without));
      const key = keyOf(req) ?? "";
      const everyone = await (await next(as(new Request(all, { headers: req.headers }), key))).json();
      const res = await next(req);
      return editJson(res, (b) => {
        const none = new Set<string>(b.data.mindIds);
        b.data.mindIds = (everyone.data.mindIds as string[]).filter((id) => !none.has(id));
        b.data.matchCount = b.data.mindIds.length;
      });
    },
    "a null filter value is ignored (selects every Mind)": async (req, next) => {
      const url = new URL(req.url);
      const raw = url.searchParams.get("filters");
      if (!raw) return next(req);
      try {
        const f = JSON.parse(raw) as Record<string, unknown>;
        for (const k of Object.keys(f)) if (f[k] === null) delete f[k];
        url.searchParams.set("filters", JSON.stringify(f));
      } catch {
        return next(req);
      }
      return next(as(new Request(url, { method: req.method, headers: req.headers }), keyOf(req) ?? ""));
    },
  }),
  ...casesOf(followRules, {
    "a second follow undoes the first (following is a toggle)": async (req, next, env) => {
      const following = remember(env, "following", () => new Set<string>());
      const at = `${keyOf(req)} ${pathOf(req)}`;
      if (is(req, "DELETE", /\/follow$/)) following.delete(at);
      if (!is(req, "POST", /\/follow$/)) return next(req);
      if (!following.has(at)) {
        const res = await next(req);
        if (res.status === 200) following.add(at);
        return res;
      }
      following.delete(at);
      return next(new Request(req.url, { method: "DELETE", headers: req.headers }));
    },
  }),
  ...casesOf(checkout, {
    "the same Idempotency-Key with another body replays the first session": async (req, next, env) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const firsts = remember(env, "acp-bodies", () => new Map<string, string>());
      const at = `${keyOf(req)} ${req.headers.get("idempotency-key")}`;
      const text = await req.text();
      const first = firsts.get(at);
      if (first === undefined) firsts.set(at, text);
      return next(new Request(req.url, { method: "POST", headers: req.headers, body: first ?? text }));
    },
  }),
  ...casesOf(exportJob, {
    "an export read before it is ready answers 200 with an empty artifact": async (req, next) => {
      if (!is(req, "GET", /\/export-download$/)) return next(req);
      const res = await next(req);
      return res.status === 404
        ? new Response("", { status: 200, headers: { "content-type": "text/markdown; charset=utf-8" } })
        : res;
    },
    "an export job never becomes downloadable": async (req, next, env) =>
      is(req, "GET", /\/export-download$/) && callerOf(req, env) !== null
        ? envelope(404, "Export not found", pathOf(req))
        : next(req),
    "a finished export is gone again ten seconds later: its download answers 404": async (req, next, env) => {
      if (!is(req, "GET", /\/export-download$/)) return next(req);
      const res = await next(req);
      if (res.status !== 200 || !servedLongAgo(env, req.url)) return res;
      return envelope(404, "Export not found", pathOf(req));
    },
    "export-status without kind answers the validation report's status": async (req, next) => {
      const url = new URL(req.url);
      if (!is(req, "GET", /\/export-status$/) || url.searchParams.has("kind")) return next(req);
      url.searchParams.set("kind", "validation_report");
      return next(new Request(url, { method: "GET", headers: req.headers }));
    },
  }),
  ...casesOf(researchStages, {
    "a deepen asked while research runs does not say it is queued behind it": editWhen(
      on("POST", /\/recalibrate$/, 202),
      (b) => {
        if (b?.data?.research) delete b.data.research.queuedBehindRunningResearch;
      },
    ),
    "finished research reads as recalibrating again ten seconds later": async (req, next, env) => {
      const res = await next(req);
      if (!is(req, "GET", /\/progress$/)) return res;
      return editJson(res, (b) => {
        const r = b?.data?.research;
        if (r?.status === "completed" && servedLongAgo(env, pathOf(req)))
          Object.assign(r, { status: "running", stage: "recalibrating", phase: "researching", progress: 90 });
      });
    },
    "research.stage goes back to researching after recalibrating": async (req, next, env) => {
      const res = await next(req);
      if (!is(req, "GET", /\/progress$/)) return res;
      const seen = remember(env, "stages", () => new Set<string>());
      return editJson(res, (b) => {
        const r = b?.data?.research;
        if (!r) return;
        if (seen.has("recalibrating") && r.stage === "done" && !seen.has("reverted")) {
          seen.add("reverted");
          r.stage = "researching";
        }
        seen.add(r.stage);
      });
    },
  }),
  ...casesOf(world, {
    "a ready Formation keeps its build progress": editFormation((d) => {
      if (d.status === "ready") d.progress = { percent: 100 };
    }),
    "Formation builds never finish": editFormation((d) =>
      Object.assign(d, { status: "building", progress: { percent: 50 } }),
    ),
  }),
  ...casesOf(keyName, {
    "an API key listing shows another name than the creation answered": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/api-keys$/)) return res;
      return editJson(res, (rows) => {
        if (Array.isArray(rows)) for (const r of rows) if (r.name === null) r.name = "";
      });
    },
  }),
  ...casesOf(exportsRules, {
    "a validation report exported for a viewer without edit access": servedAsOwner(
      "studyViewer",
      "POST",
      /\/export$/,
    ),
  }),
  ...casesOf(recalibrateOwnerOnly, {
    "a direct member may recalibrate the Audience": servedAsOwner("member", "POST", /\/recalibrate$/),
  }),
  ...casesOf(formationRefusals, {
    "a Formation of an Audience past the member cap is made (no FORMATION_CAP)": async (req, next, env) => {
      const large = env.sim.manifest().audiences.large?.id;
      if (!is(req, "POST", /\/formations$/) || !pathOf(req).includes(String(large))) return next(req);
      return answer(
        200,
        { data: { id: "0dc5ba6c-e82c-4f98-a748-4b70bc644bdd", name: "x", status: "building" } },
        { "cache-control": "private, no-store" },
      );
    },
  }),
  ...casesOf(duplicatePlanLimit, {
    "a duplicate past the owner's Mind allowance is made": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/duplicate$/) || res.status !== 403) return res;
      return answer(201, { data: { id: "7d0c1f60-3b5e-4f8a-9a51-0c6f4a2e9b11", name: "Copy" } });
    },
  }),
];
