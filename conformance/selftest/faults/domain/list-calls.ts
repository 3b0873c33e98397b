/** The deliberate faults that the checks of checks/domain/list-calls.ts must each report. */

import * as checks from "../../../checks/domain/list-calls.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { asCaller, casesOf, is } from "../../fault-kit.ts";
import { editJson } from "../../harness.ts";

export const LIST_CALLS_FAULTS: FaultCase[] = [
  ...casesOf(checks.listCalls, {
    // A listing that touches every key of the account, as if each had made the request.
    "listing the keys marks every key used": async (req, next) => {
      const res = await next(req);
      if (!is(req, "GET", /\/api-keys$/) || res.status !== 200) return res;
      const now = new Date().toISOString();
      return editJson(res, (b) => {
        for (const k of b as { lastUsedAt: string | null }[]) k.lastUsedAt = now;
      });
    },
    "listing Formations rebuilds the first ready one": async (req, next) => {
      if (!is(req, "GET", /\/formations$/)) return next(req);
      const res = await next(req);
      const ready = ((await res.clone().json()) as { data?: { id: string; status: string }[] }).data?.find(
        (f) => f.status === "ready",
      );
      if (ready) {
        const url = new URL(req.url);
        url.pathname = `${url.pathname}/${ready.id}/recompute`;
        url.search = "";
        await next(new Request(url, { method: "POST", headers: req.headers }));
      }
      return res;
    },
    "listing collaborators saves the Audience (updatedAt moves)": async (req, next) => {
      if (!is(req, "GET", /\/collaborators$/)) return next(req);
      const detail = new URL(req.url.replace(/\/collaborators(\?.*)?$/, ""));
      const d = await next(new Request(detail, { headers: req.headers }));
      const name = ((await d.json()) as { data?: { name?: string } }).data?.name;
      if (name !== undefined) await next(asCaller(req, detail, "PUT", { name }));
      return next(req);
    },
  }),
];
