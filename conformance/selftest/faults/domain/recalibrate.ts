/** The deliberate faults that the checks of checks/domain/recalibrate.ts must each report. */

import * as checks from "../../../checks/domain/recalibrate.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, is } from "../../fault-kit.ts";
import { editJson, withStatus } from "../../harness.ts";
import { servedAsOwner } from "../helpers.ts";

export const RECALIBRATE_FAULTS: FaultCase[] = [
  ...casesOf(checks.pendingRecalibrations, {
    "an eleventh pending recalibration accepted": async (req, next) => {
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
  }),
  ...casesOf(checks.recalibrateReplay, {
    "recalibrate replay repeats the work (202 again)": async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/recalibrate$/) && res.status === 200 ? withStatus(res, 202) : res;
    },
  }),
  ...casesOf(checks.recalibrateOwnerOnly, {
    "a direct member may recalibrate the Audience": servedAsOwner("member", "POST", /\/recalibrate$/),
  }),
];
