/** The deliberate faults that the checks of checks/limits/thresholds.ts must each report. */

import { LIMITS } from "../../../../src/contract/limits.ts";
import * as checks from "../../../checks/limits/thresholds.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, is } from "../../fault-kit.ts";
import { editJson, envelope, pathOf } from "../../harness.ts";
import { remember, UUID } from "../helpers.ts";

export const THRESHOLDS_FAULTS: FaultCase[] = [
  ...casesOf(checks.memberCapBoundary, {
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
  ...casesOf(checks.previewSoftWarn, {
    "softWarn only above its threshold, not from it": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/formations\/preview$/)) return res;
      return editJson(res, (b) => {
        if (b?.data) b.data.softWarn = b.data.memberCount > LIMITS.previewSoftWarnFrom;
      });
    },
  }),
];
