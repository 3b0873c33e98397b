/** The deliberate faults that the checks of checks/domain/audiences.ts must each report. */

import * as checks from "../../../checks/domain/audiences.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { AUD, bodyOf, casesOf, editWhen, is, on, withBody } from "../../fault-kit.ts";
import { answer, callerOf, editJson, keyOf, pathOf, withStatus } from "../../harness.ts";
import { hiddenFrom, remember, resentAs } from "../helpers.ts";

/** The path of one Audience (a read, an update, a delete). */
const ONE_AUDIENCE = new RegExp(`/audiences/${AUD}$`);

export const AUDIENCES_FAULTS: FaultCase[] = [
  ...casesOf(checks.audienceDelete, {
    "a collaborator (not the owner) can delete the Audience": async (req, next, env) => {
      if (req.method === "DELETE" && ONE_AUDIENCE.test(pathOf(req)) && callerOf(req, env) === "admin")
        return answer(204);
      return next(req);
    },
  }),
  ...casesOf(checks.visibility, {
    "sharing fields shown to public viewers": editWhen(on("GET", ONE_AUDIENCE), (b) => {
      if (b?.data && b.data.currentMemberRole === "public_viewer")
        Object.assign(b.data, {
          isSharedWithTeam: false,
          isLinkSharingEnabled: false,
          publicShareId: null,
        });
    }),
  }),
  ...casesOf(checks.fileRedaction, {
    "uploaded-file URLs not redacted for Study viewers": async (req, next, env) => {
      if (!is(req, "GET", ONE_AUDIENCE) || callerOf(req, env) !== "studyViewer") return next(req);
      const headers = new Headers(req.headers);
      headers.set("authorization", `Bearer ${env.sim.manifest().users.owner?.apiKey}`);
      const res = await next(new Request(req.url, { headers }));
      return editJson(res, (b) => {
        if (b?.data) b.data.currentMemberRole = "public_viewer";
        for (const k of ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"]) delete b?.data?.[k];
      });
    },
  }),
  ...casesOf(checks.updateRules, {
    "PUT does not trim the name": async (req, next) => {
      const res = await next(req);
      return req.method === "PUT" && res.status === 200
        ? editJson(res, (b) => {
            b.data.name = ` ${b.data.name} `;
          })
        : res;
    },
  }),
  ...casesOf(checks.followRules, {
    "following a private Audience answered 200 instead of 404": async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/follow$/) && res.status === 404
        ? editJson(withStatus(res, 200), () => ({ data: { following: true } }))
        : res;
    },
  }),
  ...casesOf(checks.membersPreview, {
    "members=preview ignored (the complete detail)": async (req, next) => {
      const url = new URL(req.url);
      if (!url.searchParams.has("members")) return next(req);
      url.searchParams.delete("members");
      return next(new Request(url, { method: req.method, headers: req.headers }));
    },
  }),
  ...casesOf(checks.followRules, {
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
  ...casesOf(checks.visibility, {
    "a team member cannot read a team-shared Audience": hiddenFrom(
      "GET",
      ONE_AUDIENCE,
      (h) => h === "teammate",
    ),
    "a Study member cannot read the Audience": hiddenFrom("GET", ONE_AUDIENCE, (h) => h === "studyViewer"),
    "a public viewer's currentMemberRole is `viewer`": editWhen(on("GET", ONE_AUDIENCE, 200), (b) => {
      if (b?.data?.currentMemberRole === "public_viewer") b.data.currentMemberRole = "viewer";
    }),
  }),
  ...casesOf(checks.updateRules, {
    "a direct member's update refused as hidden": hiddenFrom("PUT", ONE_AUDIENCE, (h) => h === "member"),
    "a direct member may change team sharing": resentAs("PUT", ONE_AUDIENCE, 403, (h) => h !== "owner"),
    "sharing with the team is allowed to an owner in no team (no TEAM_REQUIRED)": async (req, next) => {
      if (!is(req, "PUT", ONE_AUDIENCE)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const res = await next(again);
      if (res.status !== 400 || typeof json !== "object" || json === null) return res;
      const { isSharedWithTeam: _, ...rest } = json as Record<string, unknown>;
      return next(withBody(again, rest));
    },
    "PUT changes isLinkSharingEnabled": async (req, next) => {
      if (!is(req, "PUT", ONE_AUDIENCE)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const sent = (json as { isLinkSharingEnabled?: unknown } | undefined)?.isLinkSharingEnabled;
      const res = await next(again);
      return typeof sent === "boolean" && res.ok
        ? editJson(res, (b) => {
            b.data.isLinkSharingEnabled = sent;
          })
        : res;
    },
    "PUT takes a blank name as no change": async (req, next) => {
      if (!is(req, "PUT", ONE_AUDIENCE)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const name = (json as { name?: unknown } | undefined)?.name;
      if (typeof name !== "string" || name.trim() !== "") return next(again);
      return next(new Request(again.url, { method: "GET", headers: again.headers }));
    },
  }),
];
