/** The dashboard's view of Audiences: who owns each, how many members, how it is shared, what runs on it. */

import type { WorldSection } from "../../core/control/world-view.ts";
import type { Services } from "../../core/services.ts";
import { userName } from "../dashboard-names.ts";

export function audiencesView({ state }: Services): WorldSection[] {
  const rows = [...state.audiences.values()].map((a) => ({
    id: a.id,
    cells: {
      name: a.name,
      owner: userName(state, a.ownerId),
      members: a.memberIds.length,
      public: a.isPublic,
      teamShared: a.isSharedWithTeam,
      calibrating: a.calibrationActive,
      research: a.research?.stage ?? null,
    },
    read: { path: `/api/v1/audiences/${a.id}`, userId: a.ownerId },
  }));
  return [{ name: "Audiences", rows }];
}
