/** The dashboard's view of users and their API keys (never a secret: only its hash is stored). */

import { instant, type WorldSection } from "../../core/control/world-view.ts";
import type { Services } from "../../core/services.ts";
import { userName } from "../dashboard-names.ts";

export function identityView({ state }: Services): WorldSection[] {
  const users = [...state.users.values()].map((u) => ({
    id: u.id,
    cells: {
      handle: u.handle,
      name: u.name,
      plan: u.plan,
      subscription: u.subscriptionActive,
      team: u.teamId !== null,
      sso: u.sso,
    },
    read: { path: "/api/v1/auth/me", userId: u.id },
  }));
  const keys = [...state.apiKeys.values()].map((k) => ({
    id: k.id,
    cells: {
      owner: userName(state, k.userId),
      name: k.name,
      createdAt: instant(k.createdAt),
      lastUsedAt: instant(k.lastUsedAt),
    },
    read: { path: "/api/v1/api-keys", userId: k.userId },
  }));
  return [
    { name: "Users", rows: users },
    { name: "API keys", rows: keys },
  ];
}
