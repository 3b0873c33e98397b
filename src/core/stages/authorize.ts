/**
 * Builds what the resource's handler is handed (parameters checked against the contract: 400 with each
 * problem) and asks the route whether the caller may act on what it names (404 for what is out of reach,
 * 403 for a role that may not). Done before the body is read, so a refusal does not wait for an upload.
 */
import type { Validators } from "../../contract/validate.ts";
import { ApiError } from "../errors.ts";
import { RecordingHeaders } from "../persistence/recorder.ts";
import { buildContext } from "../request/context.ts";
import type { RouteSpec } from "../resource.ts";
import type { Services } from "../services.ts";
import type { Authenticated, AuthorizedPart } from "./call.ts";
import { grown, type Stage } from "./compose.ts";

export interface AuthorizeDeps {
  routes: ReadonlyMap<string, RouteSpec>;
  validators: Validators;
  /** The world's services, as they are now (a reset makes new ones). */
  services(): Services;
  /** Changes are recorded: a change keeps the headers it was served with (keys apart). */
  recording: boolean;
}

export function authorize(d: AuthorizeDeps): Stage<Authenticated, AuthorizedPart> {
  return {
    name: "authorize",
    run(call, next) {
      const spec = d.routes.get(call.op.operationId);
      if (!spec) throw new ApiError(501, `${call.op.operationId} is not simulated yet`);
      const recorded = d.recording && spec.pure !== true ? new RecordingHeaders(call.request.headers) : null;
      const world = { validators: d.validators, services: d.services() };
      const ctx = buildContext(world, call, spec, recorded);
      spec.authorize?.(ctx);
      return next(grown(call, { spec, ctx, recorded }));
    },
  };
}
