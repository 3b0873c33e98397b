/**
 * An armed fault (`POST /__sim/faults`) whose method and path match takes the request: it waits its delay,
 * then answers its status in the envelope, before the key is even looked at. A delay alone passes it on.
 */
import { ApiError } from "../errors.ts";
import type { FaultRule } from "../faults.ts";
import type { Lifetime } from "../lifetime.ts";
import type { Stage } from "./call.ts";

export function fault(life: Lifetime): Stage {
  return {
    name: "fault",
    run(call) {
      const taken = life.faults.take(call.request.method, call.path);
      return taken ? inject(taken, life) : undefined;
    },
  };
}

async function inject(rule: FaultRule, life: Lifetime): Promise<undefined> {
  if (rule.delayMs) await life.sleep(rule.delayMs);
  if (rule.status) throw new ApiError(rule.status, `Injected fault (rule ${rule.id})`);
  return undefined;
}
