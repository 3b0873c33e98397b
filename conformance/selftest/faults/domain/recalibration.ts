/** The deliberate faults that the checks of checks/domain/recalibration.ts must each report. */

import * as checks from "../../../checks/domain/recalibration.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { AUD, casesOf, editWhen, on, servedLongAgo } from "../../fault-kit.ts";
import { callerOf, editJson, envelope, pathOf } from "../../harness.ts";

export const RECALIBRATION_FAULTS: FaultCase[] = [
  ...casesOf(checks.recalibrationStatus, {
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
  ...casesOf(checks.recalibrationStatus, {
    "calibration.active false while a recalibration runs": editWhen(
      on("GET", new RegExp(`/audiences/${AUD}$`), 200),
      (b) => {
        if (b?.data?.calibration) b.data.calibration.active = false;
      },
    ),
  }),
];
