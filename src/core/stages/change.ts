/**
 * What a handler that may change the world does, one change at a time and at one instant; recorded unless
 * it was refused without moving anything. The `execute` stage makes a request's change through it, and a
 * replay (src/core/world/replay.ts) makes a recorded one again, passing the instant (`at`) it was first made at.
 */

import { ApiError } from "../errors.ts";
import type { RequestChange } from "../persistence/changes.ts";
import { type RecordingHeaders, worldMark } from "../persistence/recorder.ts";
import type { Outcome } from "../request/exchange.ts";
import type { BodyResult } from "../request/request-body.ts";
import type { Reply, RequestContext, RouteSpec } from "../resource.ts";
import type { Lifetime } from "../world/lifetime.ts";

export type MakeChange = (
  ctx: RequestContext,
  spec: RouteSpec,
  raw: BodyResult,
  recorded: RecordingHeaders | null,
  at: number | undefined,
) => Promise<Reply | Outcome>;

/** `recording`: a sink receives changes, so whether the world moved is worth marking. */
export function changeMaker(life: Lifetime, recording: boolean): MakeChange {
  return async (ctx, spec, raw, recorded, at) => {
    const world = life.world;
    const mark = recording ? worldMark(world) : "";
    const t = world.clock.settle(at);
    let status = 500;
    try {
      if (ctx.apiKey) ctx.apiKey.lastUsedAt = t;
      // Access was checked before the body arrived; the world may have moved since, and a replay checks here.
      spec.authorize?.(ctx);
      const reply = await spec.handler(ctx);
      status = reply.status;
      return reply;
    } catch (error) {
      if (error instanceof ApiError) status = error.status;
      throw error;
    } finally {
      world.clock.release();
      if (recorded && (status < 400 || status >= 500 || worldMark(world) !== mark)) {
        const method = ctx.request.method;
        const change: RequestChange = {
          kind: "request",
          at: t,
          method,
          url: ctx.request.url,
          keyId: ctx.apiKey?.id ?? null,
          headers: recorded.read(),
          body: raw.present ? raw.text : null,
        };
        // A read that seeded data is made durable by the next write, which the log holds after it.
        life.record(change, method !== "GET" && method !== "HEAD");
      }
    }
  };
}
