/**
 * The ways a request takes besides the API's: the control plane under `/__sim`, and the pages resources
 * serve outside the contract (the buyer's checkout form). Each claims its paths and passes the rest on.
 */
import type { ControlDeps } from "../control/control.ts";
import { handleControl } from "../control/control.ts";
import { ApiError } from "../errors.ts";
import type { Outcome, SimRequest } from "../request/exchange.ts";
import type { Pages } from "../request/pages.ts";
import type { Arrived } from "./call.ts";
import type { Stage } from "./compose.ts";

/** Runs a step that may change the world in its turn of the serial section. */
export type Changing = <T>(step: () => Promise<T>) => Promise<T>;

const reads = (r: SimRequest) => r.method === "GET" || r.method === "HEAD";

/** `enabled`: the control plane is served at all (off: its paths are 404). */
export function control(deps: ControlDeps, enabled: boolean, changing: Changing): Stage<Arrived> {
  return {
    name: "control",
    run(call, next) {
      const { path, request, url } = call;
      if (path !== "/__sim" && !path.startsWith("/__sim/")) return next(call);
      if (!enabled) throw new ApiError(404, "Not Found");
      return reads(request)
        ? handleControl(request, url, deps)
        : changing(() => handleControl(request, url, deps));
    },
  };
}

/** Only a path a page claims takes the page's way (for a write, its own turn in the serial section). */
export function pages(p: Pages, changing: Changing): Stage<Arrived> {
  return {
    name: "pages",
    run(call, next) {
      const { path, request, url } = call;
      if (!p.claims(path)) return next(call);
      const page: Promise<Outcome | null> = reads(request)
        ? p.serve(request, url)
        : changing(() => p.change(request, url, undefined));
      return page.then((answer) => answer ?? next(call));
    },
  };
}
