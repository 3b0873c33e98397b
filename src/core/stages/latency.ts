/**
 * The configured latency (`PATCH /__sim/config {latencyMs}`: a fixed wait or a range drawn from the
 * world's latency stream), waited once the request is known to be served. Without latency, no await.
 */
import type { Lifetime } from "../lifetime.ts";
import type { Stage } from "./call.ts";

export function latency(life: Lifetime): Stage {
  return {
    name: "latency",
    run() {
      if (life.config.latencyMs === 0) return undefined;
      return life.delay().then(() => undefined);
    },
  };
}
