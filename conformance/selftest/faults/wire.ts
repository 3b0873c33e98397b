/** The deliberate faults that the checks of checks/wire.ts must each report. */

import { MAX_REQUEST_TARGET_BYTES } from "../../../src/contract/request-size.ts";
import * as checks from "../../checks/wire.ts";
import type { FaultCase } from "../fault-kit.ts";
import { behind, casesOf } from "../fault-kit.ts";
import { envelope, pathOf } from "../harness.ts";

export const WIRE_FAULTS: FaultCase[] = [
  // The same correct core behind node:http's own defaults: what the HTTP layer adds must be caught too.
  ...behind("node-defaults", [
    ...casesOf(checks.httpLayer, {
      "node:http defaults in front: bare 400 for no Host, bare 417 for an unknown Expect": (req, next) =>
        next(req),
    }),
    ...casesOf(checks.requestSize, {
      "node:http defaults in front: a 16 KiB head refuses valid long filters": (req, next) => next(req),
    }),
  ]),
  ...casesOf(checks.requestSize, {
    "a valid long filters refused as too long": async (req, next) =>
      req.url.length > 16_384 ? envelope(414, "URI Too Long", "") : next(req),
  }),
  // Behind a plain node:http server that takes heads of any size, the long target reaches the fetch handler.
  ...behind(
    "node-large-heads",
    casesOf(checks.requestSize, {
      "a 414's envelope names the request path in url": async (req, next) =>
        req.url.length > MAX_REQUEST_TARGET_BYTES ? envelope(414, "URI Too Long", pathOf(req)) : next(req),
      "a request target past twice the longest allowed is routed (no 414)": (req, next) => next(req),
    }),
  ),
];
