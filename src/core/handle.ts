/**
 * The front door of every request a simulator is handed: due background jobs run first, then the request
 * goes one of three ways (the control plane under `/__sim`, a resource's page outside the contract, or the
 * API stages of src/core/stages/), and whatever answered is journaled. A HEAD answer loses its body here.
 */

import { authenticate as findCaller } from "./auth.ts";
import { type ControlDeps, handleControl } from "./control.ts";
import { ApiError } from "./errors.ts";
import { Answer, LineStream, type Outcome, type SimRequest } from "./exchange.ts";
import type { JournalEntry } from "./journal.ts";
import type { Lifetime } from "./lifetime.ts";
import type { Pages } from "./pages.ts";
import { renderError } from "./render.ts";
import type { SimulatorOptions } from "./simulator-api.ts";
import { ApiCall, runStages, type Stage, type Who } from "./stages/index.ts";

export interface FrontDoor {
  life: Lifetime;
  pages: Pages;
  stages: readonly Stage[];
  /** The control plane's view of the simulator. */
  control: ControlDeps;
  /** Whether the control plane is served at all (off: its paths are 404). */
  controlEnabled: boolean;
  ready: Promise<void>;
  options: Pick<SimulatorOptions, "onError" | "onRequest">;
}

export function createHandler(d: FrontDoor): (request: SimRequest) => Promise<Outcome> {
  const { life, pages, stages, control, options } = d;

  /** Which way the request goes; the journal, the clock's due jobs and HEAD are the caller's. */
  async function dispatch(request: SimRequest, url: URL, pathname: string, who: Who): Promise<Outcome> {
    const reads = request.method === "GET" || request.method === "HEAD";
    if (pathname === "/__sim" || pathname.startsWith("/__sim/")) {
      if (!d.controlEnabled) return renderError(new ApiError(404, "Not Found"), pathname, {});
      return reads
        ? await handleControl(request, url, control)
        : await life.recorder.changing(() => handleControl(request, url, control));
    }
    // Only a path a page claims takes the page's way (for a write, its own turn in the serial section).
    if (pages.claims(pathname)) {
      const page = reads
        ? await pages.serve(request, url)
        : await life.recorder.changing(() => pages.change(request, url, undefined));
      if (page) return page;
    }
    return runStages(stages, new ApiCall(request, url, pathname, who));
  }

  return async function handle(request: SimRequest): Promise<Outcome> {
    if (!life.built) await d.ready;
    while (life.setupDone) await life.setupDone;
    const started = life.wall();
    const url = URL.parse(request.url);
    // Only a host that passes its own target can get here with one that is not a URL.
    if (url === null) return renderError(new ApiError(400, "Bad Request"), "", {});
    // Read once: each read of a URL's pathname makes a new string.
    const pathname = url.pathname;
    const who: Who = { userId: null, pure: false, keysOnly: false, body: null };
    let response: Outcome;
    try {
      const clock = life.world.clock;
      const ran = clock.ran;
      const at = clock.runDue();
      if (clock.ran !== ran) life.record({ kind: "time", at }, false);
      response = await dispatch(request, url, pathname, who);
    } catch (error) {
      if (request.signal.aborted) {
        // The client went away mid-request (reading its body failed): not a bug, and nobody reads this.
        response = renderError(new ApiError(499, "Client Closed Request"), pathname, {});
      } else {
        options.onError?.(error, { method: request.method, path: pathname });
        response = renderError(new ApiError(500), pathname, {});
      }
    }
    if (!who.pure && !who.keysOnly) life.memo.touch();
    journal(request, url, pathname, who, response, started);
    return request.method === "HEAD" ? await withoutBody(response) : response;
  };

  /**
   * Whose key an answer that never reached authentication was sent with (an injected fault's, a 404 of a
   * route that is not there, a refusal before the key was read): the journal still names its caller.
   */
  function senderOf(r: SimRequest, path: string): string | null {
    if (path.startsWith("/__sim")) return null;
    const header = r.headers.get("authorization");
    if (header === null) return null;
    try {
      return findCaller(life.world.state, header)?.user.id ?? null;
    } catch {
      // The answer may be the 500 of a state a bug broke: journaling it must not throw again.
      return null;
    }
  }

  function journal(
    r: SimRequest,
    url: URL,
    path: string,
    who: Who,
    response: Outcome,
    started: number,
  ): void {
    const entry: JournalEntry = {
      at: life.world.clock.nowIso(),
      method: r.method,
      path,
      status: response.status,
      ms: Math.round((life.wall() - started) * 100) / 100,
      userId: who.userId ?? senderOf(r, path),
    };
    // Control-plane reads are not journaled: a polling dashboard would fill the ring.
    const reads = r.method === "GET" || r.method === "HEAD";
    if (!reads || !path.startsWith("/__sim"))
      life.journal.add(entry, url.search, r.headers, who.body, response);
    options.onRequest?.(entry);
  }
}

/** A HEAD answer has no body; stop whatever would have produced one. */
async function withoutBody(response: Outcome): Promise<Outcome> {
  if (response instanceof Answer) return response.withoutBody();
  if (response instanceof LineStream) {
    response.stop();
    return new Answer(response.status, response.headers, null);
  }
  await response.body?.cancel().catch(() => {});
  return new Response(null, response);
}
