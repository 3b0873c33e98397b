/** The manifest: what a scenario provides, by handle, for tools and tests (README, "Scenarios"). */
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
  audiences: Record<string, { id: string; owner: string; people?: PeoplePlacement[] }>;
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

/**
 * Whom a scenario document's generated members were drawn from, one entry per topic they were generated
 * around: the field of work and the country the topic names, or `domain: null` and the general business
 * mix when it names no field the generator knows (then `fallback` says so).
 */
export interface PeoplePlacement {
  topic: string;
  domain: string | null;
  country: string | null;
  fallback?: string;
}
