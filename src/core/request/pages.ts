/**
 * Pages outside the contract that resources serve (the buyer's checkout form): a path a page claims takes
 * the page's way instead of the API stages; a write to one is made as one change, recorded like a request.
 */

import type { Modules } from "../modules.ts";
import { worldMark } from "../persistence/recorder.ts";
import type { Lifetime } from "../world/lifetime.ts";
import type { Outcome, SimRequest } from "./exchange.ts";

export class Pages {
  private readonly outside: Modules["outside"];
  private readonly life: Lifetime;
  private readonly recording: boolean;
  constructor(outside: Modules["outside"], life: Lifetime, recording: boolean) {
    this.outside = outside;
    this.life = life;
    this.recording = recording;
  }

  claims(pathname: string): boolean {
    return this.outside.some((o) => o.claims(pathname));
  }

  async serve(request: SimRequest, url: URL): Promise<Outcome | null> {
    for (const page of this.outside) {
      if (!page.claims(url.pathname)) continue;
      const res = await page.serve(request, url, this.life.world.services);
      if (res) return res;
    }
    return null;
  }

  /** A page that may change the world, as one change; a replay passes the instant it was first made at. */
  async change(request: SimRequest, url: URL, at: number | undefined): Promise<Outcome | null> {
    const world = this.life.world;
    const mark = this.recording ? worldMark(world) : "";
    const t = world.clock.settle(at);
    let page: Outcome | null = null;
    try {
      page = await this.serve(request, url);
      return page;
    } finally {
      world.clock.release();
      if (page && (page.status < 400 || worldMark(world) !== mark)) {
        // The pages read no header and no body: what they change follows from the path alone.
        const change = { kind: "request", at: t, method: request.method, url: request.url } as const;
        this.life.record({ ...change, keyId: null, headers: [], body: null }, true);
      }
    }
  }
}
