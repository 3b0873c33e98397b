/** The deliberate faults that the checks of checks/domain/formations.ts must each report. */

import * as checks from "../../../checks/domain/formations.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf, editWhen, is, on } from "../../fault-kit.ts";
import { answer, editJson, pathOf } from "../../harness.ts";
import { resentAs, withHeader } from "../helpers.ts";

export const FORMATIONS_FAULTS: FaultCase[] = [
  ...casesOf(checks.previewStream, {
    "NDJSON stream without `done`": async (req, next) => {
      const res = await next(req);
      if (!res.headers.get("content-type")?.includes("ndjson")) return res;
      const text = (await res.text())
        .split("\n")
        .filter((l) => l && !l.includes('"done"'))
        .join("\n");
      return new Response(`${text}\n`, { status: res.status, headers: res.headers });
    },
    "NDJSON events out of order (status before meta)": async (req, next) => {
      const res = await next(req);
      if (!res.headers.get("content-type")?.includes("ndjson")) return res;
      const lines = (await res.text()).split("\n").filter(Boolean);
      [lines[0], lines[1]] = [lines[1] as string, lines[0] as string];
      return new Response(`${lines.join("\n")}\n`, { status: res.status, headers: res.headers });
    },
    "no 406 when Accept allows nothing supported": async (req, next) => {
      if (
        /\/formations\/preview$/.test(pathOf(req)) &&
        /html|xml|q=0,/.test(req.headers.get("accept") ?? "")
      ) {
        const headers = new Headers(req.headers);
        headers.set("accept", "application/json");
        return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
      }
      return next(req);
    },
  }),
  ...casesOf(checks.formationPages, {
    "wrong pagination hasMore": editWhen(on("GET", /\/formations$/), (b) => {
      if (b.pagination) b.pagination.hasMore = !b.pagination.hasMore;
    }),
  }),
  ...casesOf(checks.formationVisibility, {
    "a private Formation visible to another collaborator": async (req, next, env) => {
      const f = env.sim.manifest().formations.teammatePrivate;
      if (f && req.method === "GET" && pathOf(req).endsWith(f.id)) {
        const headers = new Headers(req.headers);
        headers.set("authorization", `Bearer ${env.sim.manifest().users.teammate?.apiKey}`);
        return next(new Request(req.url, { headers }));
      }
      return next(req);
    },
  }),
  ...casesOf(checks.largePreview, {
    "preview of an Audience past the hard cap without hardCapExceeded": async (req, next) => {
      const res = await next(req);
      return is(req, "POST", /\/formations\/preview$/) &&
        res.headers.get("content-type")?.includes("application/json")
        ? editJson(res, (b) => {
            if (b?.data && "hardCapExceeded" in b.data) b.data.hardCapExceeded = false;
          })
        : res;
    },
  }),
  ...casesOf(checks.formationRefusals, {
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
  ...casesOf(checks.formationPages, {
    "Formations listed oldest first": editWhen(on("GET", /\/formations$/, 200), (b) => {
      b?.data?.reverse();
    }),
  }),
  ...casesOf(checks.previewStream, {
    "a preview proposes a reserved subgroup id": editWhen(on("POST", /\/formations\/preview$/, 200), (b) => {
      const s = b?.data?.hypothesis?.subgroups ?? b?.data?.subgroups;
      if (Array.isArray(s) && s[0]) s[0].id = "__other";
    }),
  }),
  ...casesOf(checks.formationVisibility, {
    // The private Formation is the teammate's own: the owner's refused recompute is made as its creator.
    "another collaborator may recompute a private Formation": resentAs(
      "POST",
      /\/recompute$/,
      404,
      () => true,
      "teammate",
    ),
  }),
  ...casesOf(checks.formationRefusals, {
    "a Formation of an Audience with no members is made": async (req, next) => {
      const res = await next(req);
      if (!is(req, "POST", /\/formations$/) || res.status !== 400) return res;
      const b = await res.clone().json();
      return /no members/.test(b?.statusMessage ?? "")
        ? answer(200, {
            data: {
              id: "00000000-0000-4000-8000-000000000001",
              name: "x",
              status: "building",
              progress: null,
              hypothesis: {},
              subgroups: [],
            },
          })
        : res;
    },
  }),
  ...casesOf(checks.previewStream, {
    "Accept quality weights ignored (the first type listed wins)": async (req, next) => {
      const accept = req.headers.get("accept");
      if (!is(req, "POST", /\/formations\/preview$/) || !accept) return next(req);
      return next(withHeader(req, "accept", accept.replace(/;\s*q=[0-9.]+/g, ""), await req.text()));
    },
    "a preview stream line that is not JSON": async (req, next) => {
      const res = await next(req);
      if (
        !is(req, "POST", /\/formations\/preview$/) ||
        !(res.headers.get("content-type") ?? "").includes("ndjson")
      )
        return res;
      return new Response(`event: meta\n${await res.text()}`, res);
    },
  }),
];
