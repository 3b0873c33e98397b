/**
 * Finds the contract's operation for the method and path (src/core/router.ts walks the operation table): a
 * path no operation serves is 404, a method it does not take is 405 with `Allow`.
 */
import { operations } from "../../contract/operations.ts";
import { ApiError, methodNotAllowed } from "../errors.ts";
import { Router } from "../router.ts";
import type { Stage } from "./call.ts";

/** Built once from the operation table; a replay matches recorded changes with it too. */
export const apiRouter = new Router(operations);

export const route: Stage = {
  name: "route",
  run(call) {
    const match = apiRouter.match(call.request.method, call.path);
    if (match.kind === "not-found") throw new ApiError(404, "Not Found");
    if (match.kind === "method-not-allowed") throw methodNotAllowed(match.allowed);
    call.op = match.op;
    call.params = match.params;
    call.prefix = match.prefix;
    if (match.op.isPrivate) call.headers["cache-control"] = "private, no-store";
    return undefined;
  },
};
