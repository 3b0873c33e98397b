/** The deliberate faults that the checks of checks/domain/members.ts must each report. */

import * as checks from "../../../checks/domain/members.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { asCaller, bodyOf, casesOf, editWhen, is, on, withBody } from "../../fault-kit.ts";
import { answer, editJson, envelope, pathOf } from "../../harness.ts";
import { resentAs } from "../helpers.ts";

export const MEMBERS_FAULTS: FaultCase[] = [
  ...casesOf(checks.planLimit, "response/schema", {
    "PlanLimitError without `current`": async (req, next) => {
      const res = await next(req);
      return res.status === 403
        ? editJson(res, (b) => {
            if (b?.data) delete b.data.current;
          })
        : res;
    },
  }),
  ...casesOf(checks.membersRules, {
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
  ...casesOf(checks.membersRules, {
    "an Audience admin may add members": resentAs(
      "POST",
      /\/members$/,
      404,
      (h) => h === "admin" || h === "member",
    ),
    "a Mind the caller may not use is added": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/members$/) || res.status !== 404) return res;
      const body = await res.clone().json();
      return /Minds/.test(body?.statusMessage ?? "") ? answer(200, { data: { added: 1 } }) : res;
    },
  }),
  ...casesOf(checks.planLimit, "response/schema", {
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
  ...casesOf(checks.membersRules, {
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
];
