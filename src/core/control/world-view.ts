/**
 * What `GET /__sim/world` shows of a world (the dashboard's view of it): the clock with its queue of jobs,
 * and a section per kind of record, contributed by the resource modules that keep them (`ResourceModule.
 * view`), so that the core names no resource. Each row says which call of the contract reads the record,
 * and as whom, so the page can offer it as curl.
 */
import type { Services } from "../services.ts";
import type { WorldSection, WorldView } from "./world-section.ts";

export type { ViewCell, WorldRow, WorldSection, WorldView } from "./world-section.ts";

/** The jobs shown: the queue can hold thousands on a manual clock; the next ones are what a person reads. */
const JOBS_SHOWN = 50;

export function worldView(
  services: Services,
  views: readonly ((s: Services) => WorldSection[])[],
): WorldView {
  const clock = services.clock;
  return {
    now: clock.nowIso(),
    clock: {
      mode: clock.mode,
      jobs: clock
        .pending()
        .slice(0, JOBS_SHOWN)
        .map((j) => ({ kind: j.kind, at: new Date(j.at).toISOString() })),
    },
    sections: views.flatMap((v) => v(services)),
  };
}

/** An instant of the virtual clock as the view shows it. */
export const instant = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();
