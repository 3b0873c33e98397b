/** Faults only the simulator's control plane shows, and why (README, "Against a deployment"). */
export const SIMULATOR_ONLY: Record<string, string> = {
  "a removed collaborator keeps access to the Audience's Formations":
    "the API cannot undo a collaborator's removal, so the world model removes no one against a deployment",
};
