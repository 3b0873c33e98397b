/** How the dashboard's views name a user or an Audience: by handle and name, as a person reads them. */
import type { State } from "../core/world/state.ts";

export function userName(state: State, userId: string): string {
  const u = state.users.get(userId);
  return u ? `${u.name} (${u.handle})` : userId;
}

export function audienceName(state: State, audienceId: string): string {
  return state.audiences.get(audienceId)?.name ?? audienceId;
}
