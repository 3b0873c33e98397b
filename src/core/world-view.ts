/**
 * What `GET /__sim/world` shows of a world (the dashboard's view of it): the clock with its queue of jobs,
 * and a section per kind of record, contributed by the resource modules that keep them (`ResourceModule.
 * view`), so that the core names no resource. Each row says which call of the contract reads the record,
 * and as whom, so the page can offer it as curl.
 */
import type { ClockMode } from "./clock.ts";
import type { Services } from "./route.ts";

export type Cell = string | number | boolean | null;

export interface WorldRow {
  id: string;
  cells: Record<string, Cell>;
  /** The contract's read of this record (a path under `/api/v1` or `/api/acp`) and a user who may make it. */
  read?: { path: string; userId: string };
}

export interface WorldSection {
  name: string;
  rows: WorldRow[];
}

export interface WorldView {
  now: string;
  clock: { mode: ClockMode; jobs: { kind: string; at: string }[] };
  sections: WorldSection[];
}

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
