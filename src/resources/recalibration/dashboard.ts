/** The dashboard's view of recalibration operations: each with its Audience, status and progress. */

import { instant, type WorldSection } from "../../core/control/world-view.ts";
import type { Services } from "../../core/services.ts";
import { audienceName } from "../dashboard-names.ts";
import { operations } from "./records.ts";

export function recalibrationView({ state }: Services): WorldSection[] {
  const rows = [...operations(state).values()].map((o) => ({
    id: o.id,
    cells: {
      audience: audienceName(state, o.audienceId),
      status: o.status,
      progress: o.progress,
      createdAt: instant(o.createdAt),
      completedAt: instant(o.completedAt),
    },
    read: {
      path: `/api/v1/audiences/${o.audienceId}/recalibrate/operations/${o.id}`,
      userId: state.audiences.get(o.audienceId)?.ownerId ?? "",
    },
  }));
  return [{ name: "Recalibrations", rows }];
}
