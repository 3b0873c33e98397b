/** The dashboard's view of checkout sessions: whose, what they buy, where they stand. */

import type { WorldSection } from "../../core/control/world-view.ts";
import type { Services } from "../../core/services.ts";
import { table } from "../../core/world/state.ts";
import { userName } from "../dashboard-names.ts";
import type { CheckoutSessionRecord } from "./records.ts";

export function checkoutView({ state }: Services): WorldSection[] {
  // The table checkout.ts keeps (read here by name: checkout.ts hands the module this view).
  const rows = [...table<CheckoutSessionRecord>(state, "checkoutSessions").values()].map((s) => ({
    id: s.id,
    cells: {
      owner: userName(state, s.ownerId),
      price: s.price.name,
      quantity: s.quantity,
      status: s.status,
    },
    read: { path: `/api/acp/checkout_sessions/${s.id}`, userId: s.ownerId },
  }));
  return [{ name: "Checkout sessions", rows }];
}
