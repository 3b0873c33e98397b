/** The manifest: what a scenario provides, by handle, for tools and tests (DESIGN.md, "The manifest"). */
import type { Plan } from "./state.ts";

export interface Manifest {
  scenario: string;
  seed: number;
  now: string;
  users: Record<
    string,
    {
      id: string;
      apiKey: string;
      plan: Plan;
      subscriptionActive: boolean;
      teamId: string | null;
      sso: boolean;
    }
  >;
  audiences: Record<string, { id: string; owner: string }>;
  minds: Record<string, { id: string; owner: string; public: boolean }>;
  formations: Record<string, { id: string; audience: string }>;
  prices: Record<
    string,
    {
      id: string;
      kind: "subscription" | "credits";
      plan: "premium" | "team" | null;
      currency: "usd" | "eur";
      unitAmount: number;
      name: string;
    }
  >;
}
