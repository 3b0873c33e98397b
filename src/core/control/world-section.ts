/**
 * The shapes of the world's view (`GET /__sim/world`): a module with no import of the core's own, so that
 * the module that declares a resource's view (resource.ts) and the view that calls them (world-view.ts) both
 * read them, neither through the other.
 */
import type { ClockMode } from "../world/clock.ts";

/** One value of a row the world's view shows. */
export type ViewCell = string | number | boolean | null;

export interface WorldRow {
  id: string;
  cells: Record<string, ViewCell>;
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
