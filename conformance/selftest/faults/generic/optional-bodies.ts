/** The deliberate faults that the checks of checks/generic/optional-bodies.ts must each report. */

import * as checks from "../../../checks/generic/optional-bodies.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf } from "../../fault-kit.ts";
import { envelope, pathOf } from "../../harness.ts";

export const OPTIONAL_BODIES_FAULTS: FaultCase[] = [
  ...casesOf(checks.optionalBodies, {
    "a request without its optional body refused": async (req, next) => {
      const optional = /\/(api-keys|duplicate|formations\/preview|export)$/.test(pathOf(req));
      if (req.method !== "POST" || !optional) return next(req);
      const text = await req.text();
      return text === ""
        ? envelope(400, "Invalid JSON body", pathOf(req))
        : next(new Request(req.url, { method: "POST", headers: req.headers, body: text }));
    },
  }),
];
