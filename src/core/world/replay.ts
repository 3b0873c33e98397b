/**
 * Makes recorded changes again (src/core/persistence/changes.ts), on the world as it stands: a restart's log, a
 * sandbox brought back, a scenario's setup steps. Nothing is recorded while it runs; no faults, rate limits
 * or latency, and no turn of its own.
 */

import { ApiError } from "../errors.ts";
import type { Change, RequestChange } from "../persistence/changes.ts";
import { ListedHeaders } from "../persistence/recorder.ts";
import { LineStream, type Outcome, type SimRequest } from "../request/exchange.ts";
import { isResponse } from "../request/render.ts";
import type { Next } from "../stages/compose.ts";
import { arrived, type Replaying } from "../stages/index.ts";
import type { Lifetime } from "./lifetime.ts";

export interface ReplayDeps {
  life: Lifetime;
  /** The replay's way (src/core/stages/index.ts): what makes one recorded change again. */
  way: Next<Replaying>;
  onError: ((error: unknown, where: { method: string; path: string }) => void) | undefined;
}

export class Replayer {
  private readonly d: ReplayDeps;
  constructor(d: ReplayDeps) {
    this.d = d;
  }

  async replay(changes: Iterable<Change>): Promise<void> {
    const life = this.d.life;
    life.recorder.replaying = true;
    try {
      for (const c of changes) {
        if (c.kind === "request") await this.request(c);
        else if (c.kind === "time") life.world.clock.moveTo(c.at);
        else if (c.kind === "advance") {
          if (c.at !== undefined) life.world.clock.moveTo(c.at);
          life.advance(c.ms);
        } else if (c.kind === "config") life.configure(c);
        else if (c.kind === "reset")
          await life.build(
            life.resolve(c.document !== undefined ? (c.document as object) : c.scenario),
            c.seed,
          );
        else if (c.kind === "restore") life.restore(c.snapshot);
      }
    } finally {
      life.recorder.replaying = false;
      life.memo.touch();
    }
  }

  /** Makes one recorded change (or a setup step) again; answers the status it ended with and a refusal's words. */
  async request(c: RequestChange): Promise<{ status: number; message: string }> {
    const url = new URL(c.url);
    const request: SimRequest = {
      method: c.method,
      url: c.url,
      headers: new ListedHeaders(c.headers),
      body: null,
      signal: new AbortController().signal,
    };
    let outcome: Outcome;
    try {
      outcome = await this.d.way({ ...arrived(request, url), change: c });
    } catch (error) {
      // A refusal is part of what was recorded (it moved the world all the same); a bug is told, not fatal.
      if (error instanceof ApiError) return { status: error.status, message: error.message };
      this.d.onError?.(error, { method: c.method, path: url.pathname });
      return { status: 500, message: "Internal Server Error" };
    }
    // A stream (a preview) is not read by anyone; stop it.
    if (outcome instanceof LineStream) outcome.stop();
    else if (isResponse(outcome)) await outcome.body?.cancel().catch(() => {});
    return { status: outcome.status, message: "" };
  }
}
