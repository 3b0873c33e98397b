/** The deliberate faults that the checks of checks/generic/methods.ts must each report. */

import * as checks from "../../../checks/generic/methods.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { casesOf } from "../../fault-kit.ts";
import { withHeaders } from "../../harness.ts";

export const METHODS_FAULTS: FaultCase[] = [
  ...casesOf(checks.wrongMethod, {
    "a wrong method falls through to another handler (PATCH taken as PUT)": async (req, next) =>
      req.method === "PATCH"
        ? next(new Request(req.url, { method: "PUT", headers: req.headers, body: await req.text() }))
        : next(req),
    "405 for a wrong method as plain text": async (req, next) => {
      const res = await next(req);
      return res.status === 405
        ? new Response("Method Not Allowed", {
            status: 405,
            headers: { "content-type": "text/plain", allow: res.headers.get("allow") ?? "" },
          })
        : res;
    },
    "405 without Allow": async (req, next) => withHeaders(await next(req), (h) => h.delete("allow")),
  }),
];
