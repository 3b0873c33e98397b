/**
 * The answers the simulator builds by hand must fit the contract's schemas: a view may say more than
 * the contract shows (the description leaves most records open), never something else. Type-only: the
 * type-check fails when a view and its schema drift apart.
 */
import type { components } from "../contract/types.gen.ts";
import type { Decoded } from "../core/request/encoded-json.ts";
import type { AudienceDetailView, AudienceSummaryView } from "./audiences/audience-view.ts";
import type { CheckoutSessionBody } from "./checkout/records.ts";
import type { FormationDetailView, FormationSummaryView } from "./formations/formation-view.ts";

type Schema<K extends keyof components["schemas"]> = components["schemas"][K];
/** Compiles only when T can stand where U is expected. */
type Fits<T extends U, U> = T;

export type ContractFit = [
  Fits<Decoded<AudienceSummaryView>, Schema<"Audience">>,
  Fits<Decoded<AudienceDetailView>, Schema<"AudienceDetail">>,
  Fits<FormationSummaryView, Schema<"FormationSummary">>,
  Fits<FormationDetailView, Schema<"Formation">>,
  Fits<CheckoutSessionBody, Schema<"CheckoutSession">>,
];
