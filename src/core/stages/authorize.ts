/**
 * Builds what the resource's handler is handed (parameters checked against the contract: 400 with each
 * problem) and asks the route whether the caller may act on what it names (404 for what is out of reach,
 * 403 for a role that may not). Done before the body is read, so a refusal does not wait for an upload.
 */

import { RecordingHeaders } from "../../persistence/recorder.ts";
import { buildContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import type { Lifetime } from "../lifetime.ts";
import type { RouteSpec } from "../route.ts";
import type { Stage } from "./call.ts";

/** `recording`: changes are recorded, so a change keeps the headers it was served with (keys apart). */
export function authorize(life: Lifetime, routes: ReadonlyMap<string, RouteSpec>, recording: boolean): Stage {
  return {
    name: "authorize",
    run(call) {
      const spec = routes.get(call.op.operationId);
      if (!spec) throw new ApiError(501, `${call.op.operationId} is not simulated yet`);
      call.spec = spec;
      const recorded = recording && spec.pure !== true ? new RecordingHeaders(call.request.headers) : null;
      call.recorded = recorded;
      const world = { validators: life.contract.validators, services: life.world.services };
      call.ctx = buildContext(world, call, spec, recorded);
      spec.authorize?.(call.ctx);
      return undefined;
    },
  };
}
