/** Faults only the simulator's control plane shows, and why (README, "Against a deployment"). */
export const SIMULATOR_ONLY: Record<string, string> = {
  "a removed collaborator keeps access to the Audience's Formations":
    "the API cannot undo a collaborator's removal, so the world model removes no one against a deployment",
  "Formations seeded when the list is read at an offset past 0":
    "only a world no listing has touched shows what the first listing seeds: a new sandbox of the simulator's",
};
