/** The deliberate faults that the checks of checks/domain/exports.ts must each report. */

import * as checks from "../../../checks/domain/exports.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { bodyOf, casesOf, is, withBody } from "../../fault-kit.ts";
import { editJson, envelope, pathOf, withStatus } from "../../harness.ts";
import { servedAsOwner } from "../helpers.ts";

export const EXPORTS_FAULTS: FaultCase[] = [
  ...casesOf(checks.exportsRules, {
    "validation report export without a scored validation answered 200": async (req, next) => {
      const res = await next(req);
      return res.status === 409
        ? editJson(withStatus(res, 200), () => ({ data: { status: "queued" } }))
        : res;
    },
    "a brief is not offered as pptx (400), one of the formats the description names for it": async (
      req,
      next,
    ) => {
      if (!is(req, "POST", /\/export$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = (json ?? {}) as { kind?: string; format?: string };
      return (b.kind ?? "brief") === "brief" && b.format === "pptx"
        ? envelope(400, "Format pptx is not offered for kind brief", pathOf(req))
        : next(copy);
    },
  }),
  ...casesOf(checks.exportsRules, {
    "a validation report exported for a viewer without edit access": servedAsOwner(
      "studyViewer",
      "POST",
      /\/export$/,
    ),
  }),
  ...casesOf(checks.exportsRules, {
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
  ...casesOf(checks.exportsRules, {
    "`markdown` refused as an export format": async (req, next) => {
      if (!is(req, "POST", /\/export$/)) return next(req);
      const { req: again, json } = await bodyOf(req);
      return (json as { format?: string } | undefined)?.format === "markdown"
        ? envelope(400, "Invalid export format", pathOf(req))
        : next(again);
    },
  }),
];
