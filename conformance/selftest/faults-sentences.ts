/**
 * Faults the sentence index asked for: each breaks one sentence of openapi.json that no other fault broke
 * (conformance/index). They are grouped by the check that must report them, as in the other fault files.
 */

import { updateRules, visibility } from "../checks/audiences.ts";
import { checkout } from "../checks/checkout.ts";
import { collaborators } from "../checks/collaborators.ts";
import { exportsRules } from "../checks/exports.ts";
import { formationPages, previewStream } from "../checks/formations.ts";
import { authCheck, malformedReads, unknownReads, unknownWrites, validReads } from "../checks/generic.ts";
import { bodySizes, duplicateLimits, keyName, subgroupCounts } from "../checks/limits.ts";
import { membersRules } from "../checks/members.ts";
import { optionalBodies } from "../checks/optional-bodies.ts";
import { world } from "../checks/world.ts";
import { AUD, bodyOf, casesOf, editWhen, type FaultCase, is, on, withBody } from "./fault-kit.ts";
import { as, keyFor } from "./faults-world.ts";
import { answer, callerOf, editJson, envelope, type Fault, pathOf } from "./harness.ts";

/**
 * Answers a refusal (`status`) to the callers `who` picks by the same request made as `handle` (the
 * owner unless said): what one who may not do it is then served.
 */
export const resentAs =
  (method: string, re: RegExp, status: number, who: (h: string | null) => boolean, handle = "owner"): Fault =>
  async (req, next, env) => {
    if (!is(req, method, re) || !who(callerOf(req, env))) return next(req);
    const text = await req.text();
    const again = () =>
      new Request(req.url, { method: req.method, headers: req.headers, body: text || null });
    const res = await next(again());
    return res.status === status ? next(as(again(), keyFor(env, handle))) : res;
  };

/** Refuses with 404 (as hidden) what the callers `who` picks would be served. */
const hiddenFrom =
  (method: string, re: RegExp, who: (h: string | null) => boolean): Fault =>
  async (req, next, env) =>
    is(req, method, re) && who(callerOf(req, env))
      ? envelope(404, "Audience not found", pathOf(req))
      : next(req);

export const SENTENCE_FAULTS: FaultCase[] = [
  ...casesOf(optionalBodies, {
    "a request without its optional body refused": async (req, next) => {
      const optional = /\/(api-keys|duplicate|formations\/preview|export)$/.test(pathOf(req));
      if (req.method !== "POST" || !optional) return next(req);
      const text = await req.text();
      return text === ""
        ? envelope(400, "Invalid JSON body", pathOf(req))
        : next(new Request(req.url, { method: "POST", headers: req.headers, body: text }));
    },
  }),
  ...casesOf(malformedReads, "generic/malformed-ids", {
    "a malformed path ID answered with another message than x-error-messages names": editWhen(
      (req, res) => res.status === 400 && /\/(audiences|api-keys)\//.test(pathOf(req)),
      (b) => {
        if (/ID (is required|format)$/.test(b?.statusMessage ?? "")) b.statusMessage = b.message = "Bad ID";
      },
    ),
  }),
  ...casesOf(unknownReads, "response/error-envelope", {
    "an error's message differs from its statusMessage": editWhen(on("GET", /./, 404), (b) => {
      if (b) b.message = `${b.message} (details)`;
    }),
    "error: false in the error envelope": editWhen(on("GET", /./, 404), (b) => {
      if (b) b.error = false;
    }),
  }),
  ...casesOf(authCheck, {
    "a 401 whose statusMessage is not `Unauthorized`": editWhen(
      (_req, res) => res.status === 401,
      (b) => {
        if (b) b.statusMessage = b.message = "Invalid or missing API key";
      },
    ),
  }),
  ...casesOf(validReads, {
    "/_openapi.json is not served": async (req, next) =>
      pathOf(req) === "/_openapi.json" ? envelope(404, "Not Found", pathOf(req)) : next(req),
  }),
  ...casesOf(unknownWrites, {
    "removing a Mind that is not a member answers 404": async (req, next, env) => {
      const m = new RegExp(`/audiences/(${AUD})/members/([^/]+)$`).exec(pathOf(req));
      if (req.method !== "DELETE" || !m) return next(req);
      const read = await next(
        as(new Request(new URL(`/api/v1/audiences/${m[1]}`, req.url)), keyFor(env, "owner")),
      );
      const members = read.ok ? ((await read.json()).data?.minds ?? []).map((x: { id: string }) => x.id) : [];
      return members.includes(m[2]) ? next(req) : envelope(404, "Mind not found", pathOf(req));
    },
  }),
  ...casesOf(visibility, {
    "a team member cannot read a team-shared Audience": hiddenFrom(
      "GET",
      new RegExp(`/audiences/${AUD}$`),
      (h) => h === "teammate",
    ),
    "a Study member cannot read the Audience": hiddenFrom(
      "GET",
      new RegExp(`/audiences/${AUD}$`),
      (h) => h === "studyViewer",
    ),
    "a public viewer's currentMemberRole is `viewer`": editWhen(
      on("GET", new RegExp(`/audiences/${AUD}$`), 200),
      (b) => {
        if (b?.data?.currentMemberRole === "public_viewer") b.data.currentMemberRole = "viewer";
      },
    ),
  }),
  ...casesOf(updateRules, {
    "a direct member's update refused as hidden": hiddenFrom(
      "PUT",
      new RegExp(`/audiences/${AUD}$`),
      (h) => h === "member",
    ),
    "a direct member may change team sharing": resentAs(
      "PUT",
      new RegExp(`/audiences/${AUD}$`),
      403,
      (h) => h !== "owner",
    ),
    "sharing with the team is allowed to an owner in no team (no TEAM_REQUIRED)": async (req, next) => {
      if (!is(req, "PUT", new RegExp(`/audiences/${AUD}$`))) return next(req);
      const { req: again, json } = await bodyOf(req);
      const res = await next(again);
      if (res.status !== 400 || typeof json !== "object" || json === null) return res;
      const { isSharedWithTeam: _, ...rest } = json as Record<string, unknown>;
      return next(withBody(again, rest));
    },
    "PUT changes isLinkSharingEnabled": async (req, next) => {
      if (!is(req, "PUT", new RegExp(`/audiences/${AUD}$`))) return next(req);
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
      if (!is(req, "PUT", new RegExp(`/audiences/${AUD}$`))) return next(req);
      const { req: again, json } = await bodyOf(req);
      const name = (json as { name?: unknown } | undefined)?.name;
      if (typeof name !== "string" || name.trim() !== "") return next(again);
      return next(new Request(again.url, { method: "GET", headers: again.headers }));
    },
  }),
  ...casesOf(duplicateLimits, {
    "a copy's name of 201 characters is cut to 200 instead of refused": async (req, next) => {
      if (!is(req, "POST", /\/duplicate$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const name = (json as { name?: unknown } | undefined)?.name;
      return typeof name === "string" && name.length > 200
        ? next(withBody(again, { ...(json as object), name: name.slice(0, 200) }))
        : next(again);
    },
  }),
  ...casesOf(collaborators, {
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
  ...casesOf(membersRules, {
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
  ...casesOf(bodySizes, {
    "a body over x-max-body-bytes answered 400, not 413": async (req, next) => {
      const res = await next(req);
      return res.status === 413 ? envelope(400, "Invalid input", pathOf(req)) : res;
    },
  }),
  ...casesOf(formationPages, {
    "Formations listed oldest first": editWhen(on("GET", /\/formations$/, 200), (b) => {
      b?.data?.reverse();
    }),
  }),
  ...casesOf(world, {
    // A collaborator's Formation is shared: made as the owner, a viewer's Formation is seen by everyone.
    "a public viewer's Formation is shared": async (req, next, env) => {
      const viewer = ["outsider", "studyViewer"].includes(callerOf(req, env) ?? "");
      return is(req, "POST", /\/formations$/) && viewer ? next(as(req, keyFor(env, "owner"))) : next(req);
    },
    "a viewer may delete a shared Formation": resentAs(
      "DELETE",
      /\/formations\/[^/]+$/,
      404,
      (h) => h !== "owner",
    ),
    "a public viewer's preview refused as hidden": hiddenFrom(
      "POST",
      /\/formations\/preview$/,
      (h) => h === "outsider" || h === "studyViewer",
    ),
    "complete answers `completed` at once": editWhen(on("POST", /\/complete$/, 200), (b) => {
      if (b?.status === "requires_escalation") b.status = "completed";
    }),
  }),
  ...casesOf(previewStream, {
    "a preview proposes a reserved subgroup id": editWhen(on("POST", /\/formations\/preview$/, 200), (b) => {
      const s = b?.data?.hypothesis?.subgroups ?? b?.data?.subgroups;
      if (Array.isArray(s) && s[0]) s[0].id = "__other";
    }),
  }),
  ...casesOf(subgroupCounts, {
    "a blank intent accepted": async (req, next) => {
      if (!is(req, "POST", /\/formations$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const h = (json as { hypothesis?: { intent?: unknown } } | undefined)?.hypothesis;
      if (!h || typeof h.intent !== "string" || h.intent.trim() !== "") return next(again);
      return next(withBody(again, { ...(json as object), hypothesis: { ...h, intent: "Split" } }));
    },
  }),
  ...casesOf(keyName, {
    "a blank API key name stored as an empty string, not null": editWhen(
      on("POST", /\/api-keys$/, 201),
      (b) => {
        if (b?.name === null) b.name = "";
      },
    ),
  }),
  ...casesOf(exportsRules, {
    "a brief offered as xlsx": async (req, next) => {
      if (!is(req, "POST", /\/export$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      const j = (json ?? {}) as { format?: string; kind?: string };
      const res = await next(again);
      if (res.status === 400 && j.format === "xlsx" && (j.kind ?? "brief") === "brief")
        return next(withBody(again, { ...j, format: "pdf" }));
      return res;
    },
  }),
  ...casesOf(checkout, {
    "a replay with the same Idempotency-Key makes a second session": async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("idempotency-key");
      return next(new Request(req.url, { method: "POST", headers, body: await req.text() }));
    },
    "a refresh with a body is taken": async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions\/[^/]+$/)) return next(req);
      const headers = new Headers(req.headers);
      return next(new Request(req.url, { method: "POST", headers }));
    },
    "a created session has no continue_url": editWhen(on("POST", /\/checkout_sessions$/, 201), (b) => {
      if (b) delete b.continue_url;
    }),
  }),
];
