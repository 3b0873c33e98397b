/**
 * Finds the contract's operation for the method and path (src/core/request/router.ts walks the operation table): a
 * path no operation serves is 404, a method it does not take is 405 with `Allow`.
 */
import { ApiError, methodNotAllowed } from "../errors.ts";
import type { Router } from "../request/router.ts";
import type { Arrived, RoutedPart } from "./call.ts";
import { grown, type Stage } from "./compose.ts";

/** `router`: built once from the contract's operation table; a replay matches recorded changes with it. */
export const route = (router: Pick<Router, "match">): Stage<Arrived, RoutedPart> => ({
  name: "route",
  run(call, next) {
    const match = router.match(call.request.method, call.path);
    if (match.kind === "not-found") throw new ApiError(404, "Not Found");
    if (match.kind === "method-not-allowed") throw methodNotAllowed(match.allowed);
    if (match.op.isPrivate) call.headers["cache-control"] = "private, no-store";
    return next(grown(call, { op: match.op, params: match.params, prefix: match.prefix }));
  },
});
