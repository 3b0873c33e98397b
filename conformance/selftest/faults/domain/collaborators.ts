/** The deliberate faults that the checks of checks/domain/collaborators.ts must each report. */

import * as checks from "../../../checks/domain/collaborators.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, editWhen, is, on } from "../../fault-kit.ts";
import { answer, callerOf, editJson, pathOf } from "../../harness.ts";

export const COLLABORATORS_FAULTS: FaultCase[] = [
  ...casesOf(checks.collaborators, {
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
  ...casesOf(checks.collaboratorRemoval, {
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
  ...casesOf(checks.collaborators, {
    "the owner listed among the collaborators": async (req, next, env) => {
      const res = await next(req);
      if (!is(req, "GET", /\/collaborators$/) || res.status !== 200) return res;
      const owner = env.sim.manifest().users.owner?.id;
      return editJson(res, (b) => {
        const first = b?.data?.[0];
        if (first) b.data.push({ ...first, userId: owner, id: owner });
      });
    },
    "removing the owner answered 200 (no COLLABORATOR_IS_OWNER)": editWhen(
      (req, res) => req.method === "DELETE" && /\/collaborators\//.test(pathOf(req)) && res.status === 400,
      () => ({ data: { success: true } }),
    ),
  }),
  ...casesOf(checks.collaboratorRemoval, {
    "removing a collaborator twice answers 200 again": async (req, next) => {
      const res = await next(req);
      return req.method === "DELETE" && /\/collaborators\//.test(pathOf(req)) && res.status === 404
        ? answer(200, { data: { success: true } })
        : res;
    },
  }),
];
