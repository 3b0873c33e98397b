/**
 * The hosted-checkout catalogue every scenario sells: the same three prices, with stable IDs, so that a
 * frontend or test can name a price without reading the manifest first.
 */
import type { PriceRecord, ScenarioBuilder } from "./builder.ts";

export const PRICE_CATALOGUE = {
  premiumMonthly: {
    id: "price_premiumMonthly",
    kind: "subscription",
    plan: "premium",
    currency: "usd",
    unitAmount: 2900,
    name: "Individual monthly",
  },
  teamMonthly: {
    id: "price_teamMonthly",
    kind: "subscription",
    plan: "team",
    currency: "usd",
    unitAmount: 9900,
    name: "Team monthly",
  },
  credits: {
    id: "price_credits",
    kind: "credits",
    plan: null,
    currency: "usd",
    unitAmount: 4900,
    name: "1,000 response credits",
  },
} as const satisfies Record<string, PriceRecord>;

export type PriceHandle = keyof typeof PRICE_CATALOGUE;

/** Registers the three catalogue prices under their handles (`premiumMonthly`, `teamMonthly`, `credits`). */
export function addPriceCatalogue(b: ScenarioBuilder): Record<PriceHandle, PriceRecord> {
  return {
    premiumMonthly: b.price("premiumMonthly", { ...PRICE_CATALOGUE.premiumMonthly }),
    teamMonthly: b.price("teamMonthly", { ...PRICE_CATALOGUE.teamMonthly }),
    credits: b.price("credits", { ...PRICE_CATALOGUE.credits }),
  };
}
