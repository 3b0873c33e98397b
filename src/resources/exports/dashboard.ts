/** The dashboard's view of exports: each job with its Audience, kind, format and where it stands. */

import { instant, type WorldSection } from "../../core/control/world-view.ts";
import type { Services } from "../../core/services.ts";
import { table } from "../../core/world/state.ts";
import { audienceName, userName } from "../dashboard-names.ts";
import type { ExportRecord } from "./records.ts";

export function exportsView({ state }: Services): WorldSection[] {
  // The table routes.ts keeps (read here by name: routes.ts hands the module this view).
  const rows = [...table<ExportRecord>(state, "exports").values()].map((e) => ({
    id: e.jobId,
    cells: {
      audience: audienceName(state, e.audienceId),
      kind: e.kind,
      format: e.format,
      status: e.status,
      requestedBy: userName(state, e.requestedBy),
      requestedAt: instant(e.requestedAt),
      readyAt: instant(e.readyAt),
    },
    read: {
      path: `/api/v1/audiences/${e.audienceId}/export-status?kind=${e.kind}&format=${e.format}`,
      userId: e.requestedBy,
    },
  }));
  return [{ name: "Exports", rows }];
}
