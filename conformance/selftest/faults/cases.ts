/** The deliberate faults that the checks of checks/cases.ts must each report. */

import { caseChecks } from "../../cases/index.ts";
import type { CheckDef } from "../../lib/running/context.ts";
import type { FaultCase } from "../fault-kit.ts";
import { casesOf } from "../fault-kit.ts";

export const CASES_FAULTS: FaultCase[] = [
  ...casesOf(caseChecks.find((c) => c.name === "cases/lifecycles") as CheckDef, {
    "Formations seeded when the list is read at an offset past 0": async (req, next) => {
      // The first page is read (and seeds) before any page past it is answered.
      const url = new URL(req.url);
      const offset = Number(url.searchParams.get("offset") ?? 0);
      if (req.method === "GET" && /\/formations$/.test(url.pathname) && offset > 0) {
        url.searchParams.delete("offset");
        await next(new Request(url, { headers: req.headers }));
      }
      return next(req);
    },
  }),
];
