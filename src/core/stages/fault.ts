/**
 * An armed fault (`POST /__sim/faults`) whose method and path match takes the request: it waits its delay,
 * then answers its status in the envelope, before the key is even looked at. A delay alone passes it on.
 */
import { ApiError } from "../errors.ts";
import type { FaultRule } from "../request/faults.ts";
import type { Routed } from "./call.ts";
import type { Next, Stage } from "./compose.ts";

export interface FaultDeps {
  /** The armed rule that takes this request, if any (counting it as used). */
  take(method: string, path: string): FaultRule | null;
  sleep(ms: number): Promise<void>;
}

export function fault(d: FaultDeps): Stage<Routed> {
  return {
    name: "fault",
    run(call, next) {
      const taken = d.take(call.request.method, call.path);
      return taken ? inject(taken, d, next, call) : next(call);
    },
  };
}

async function inject<C>(rule: FaultRule, d: FaultDeps, next: Next<C>, call: C) {
  if (rule.delayMs) await d.sleep(rule.delayMs);
  if (rule.status) throw new ApiError(rule.status, `Injected fault (rule ${rule.id})`);
  return next(call);
}
