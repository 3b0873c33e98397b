/** The deliberate faults that the checks of checks/domain/timelines.ts must each report. */

import * as checks from "../../../checks/domain/timelines.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, editWhen, is, on, servedLongAgo } from "../../fault-kit.ts";
import { callerOf, editJson, envelope, pathOf } from "../../harness.ts";
import { editProgress, type Json, remember } from "../helpers.ts";

export const TIMELINES_FAULTS: FaultCase[] = [
  ...casesOf(checks.exportJob, {
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
  ...casesOf(checks.researchStages, {
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
  ...casesOf(checks.researchStages, {
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
];
