/** The deliberate faults that the checks of checks/domain/duplicate.ts must each report. */

import * as checks from "../../../checks/domain/duplicate.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { bodyOf, casesOf, is, withBody } from "../../fault-kit.ts";
import { answer, editJson, pathOf } from "../../harness.ts";
import { keyPerBody, remember, resentAs, UUID } from "../helpers.ts";

export const DUPLICATE_FAULTS: FaultCase[] = [
  ...casesOf(checks.duplicateReplay, {
    "duplicate replay makes a new copy": async (req, next) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("x-service-idempotency-key");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
  ...casesOf(checks.duplicateReplay, {
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
  ...casesOf(checks.duplicateContents, {
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
  ...casesOf(checks.duplicatePlanLimit, {
    "a duplicate past the owner's Mind allowance is made": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/duplicate$/) || res.status !== 403) return res;
      return answer(201, { data: { id: "7d0c1f60-3b5e-4f8a-9a51-0c6f4a2e9b11", name: "Copy" } });
    },
  }),
  ...casesOf(checks.duplicateReplay, {
    "a public viewer may duplicate the Audience": resentAs(
      "POST",
      /\/duplicate$/,
      403,
      (h) => h === "outsider",
      "publisher",
    ),
  }),
];
