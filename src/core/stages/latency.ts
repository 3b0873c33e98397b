/**
 * The configured latency (`PATCH /__sim/config {latencyMs}`: a fixed wait or a range drawn from the
 * world's latency stream), waited once the request is known to be served. Without latency, no await.
 */
import type { WithBody } from "./call.ts";
import { after, type Stage } from "./compose.ts";

export interface LatencyDeps {
  /** The configured latency is not 0. */
  configured(): boolean;
  delay(): Promise<void>;
}

export function latency(d: LatencyDeps): Stage<WithBody> {
  return {
    name: "latency",
    run: (call, next) => after(d.configured() ? d.delay() : undefined, next, call),
  };
}
