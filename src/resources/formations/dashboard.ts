/** The dashboard's view of Formations: each with its Audience, creator, visibility and build state. */

import type { WorldSection } from "../../core/control/world-view.ts";
import type { Services } from "../../core/services.ts";
import { audienceName, userName } from "../dashboard-names.ts";

export function formationsView({ state }: Services): WorldSection[] {
  const rows = [...state.formations.values()]
    .filter((f) => f.deletedAt === null)
    .map((f) => ({
      id: f.id,
      cells: {
        name: f.name,
        audience: audienceName(state, f.audienceId),
        creator: userName(state, f.creatorId),
        visibility: f.visibility,
        status: f.status,
      },
      read: { path: `/api/v1/audiences/${f.audienceId}/formations/${f.id}`, userId: f.creatorId },
    }));
  return [{ name: "Formations", rows }];
}
