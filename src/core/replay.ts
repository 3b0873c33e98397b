/**
 * Makes recorded changes again (src/persistence/changes.ts), on the world as it stands: a restart's log, a
 * sandbox brought back, a scenario's setup steps. Nothing is recorded while it runs; no faults, rate limits
 * or latency, and no turn of its own.
 */

import type { Validators } from "../contract/validate.ts";
import type { Change, RequestChange } from "../persistence/changes.ts";
import { ListedHeaders } from "../persistence/recorder.ts";
import type { BodyResult } from "./body.ts";
import { buildContext, takeBody } from "./context.ts";
import { ApiError } from "./errors.ts";
import { LineStream, type Outcome, type SimRequest } from "./exchange.ts";
import type { Lifetime } from "./lifetime.ts";
import type { Pages } from "./pages.ts";
import { checkBody } from "./params.ts";
import { isResponse } from "./render.ts";
import type { Reply, RouteSpec } from "./route.ts";
import type { Router } from "./router.ts";
import type { MakeChange } from "./stages/index.ts";

export interface ReplayDeps {
  life: Lifetime;
  pages: Pages;
  routes: ReadonlyMap<string, RouteSpec>;
  change: MakeChange;
  router: Router;
  validators: Validators;
  onError: ((error: unknown, where: { method: string; path: string }) => void) | undefined;
}

export class Replayer {
  constructor(private readonly d: ReplayDeps) {}

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
    let outcome: Reply | Outcome | null = null;
    try {
      const write = c.method !== "GET" && c.method !== "HEAD";
      if (write && this.d.pages.claims(url.pathname)) outcome = await this.d.pages.change(request, url, c.at);
      if (outcome === null) {
        const made = await this.api(c, request, url);
        if (made === null) return { status: 404, message: "Not Found" };
        outcome = made;
      }
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

  /** The API's part: the recorded key's caller, the recorded body, the handler as one change at its instant. */
  private async api(c: RequestChange, request: SimRequest, url: URL): Promise<Reply | Outcome | null> {
    const { life, routes } = this.d;
    const match = this.d.router.match(c.method, url.pathname);
    const spec = match.kind === "found" ? routes.get(match.op.operationId) : undefined;
    if (match.kind !== "found" || !spec) return null;
    const key = c.keyId === null ? undefined : life.world.state.apiKeys.get(c.keyId);
    const user = key ? life.world.state.users.get(key.userId) : undefined;
    const caller = key && user ? { key, user } : null;
    const { op, params, prefix } = match;
    const world = { validators: this.d.validators, services: life.world.services };
    const ctx = buildContext(world, { request, url, op, params, prefix, caller }, spec, null);
    const raw: BodyResult = c.body === null ? { present: false } : { present: true, text: c.body };
    takeBody(ctx, op, raw);
    checkBody(world.validators, ctx, op, spec);
    return await this.d.change(ctx, spec, raw, null, c.at);
  }
}
