/**
 * How long the team behind a deployment holds its service to for each background machine. The description
 * sets no deadline: a build, an export, a recalibration "moves with time". A team's service level does, and
 * past it a state that has not finished is a violation, in both modes (the simulator's virtual time runs
 * against the same numbers). A config states its own (`deadlines`); where it is silent, these stand.
 */
export const MACHINES = ["formationBuild", "export", "recalibration", "research"] as const;
export type Machine = (typeof MACHINES)[number];
export type Deadlines = Record<Machine, number>;

/** The kit's defaults, generous for a staging environment under load. */
export const DEFAULT_DEADLINES: Readonly<Deadlines> = {
  formationBuild: 120_000,
  export: 120_000,
  recalibration: 300_000,
  research: 600_000,
};

/** The config file's `deadlines` (milliseconds, by machine), for the config's JSON Schema. */
export const DEADLINES_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: Object.fromEntries(MACHINES.map((m) => [`${m}Ms`, { type: "integer", minimum: 1000 }])),
} as const;

/** The deadlines a config states, the defaults for the rest; `stated` names the machines the config set. */
export function deadlinesOf(given: Partial<Record<`${Machine}Ms`, number>> | undefined): {
  deadlines: Deadlines;
  stated: Machine[];
} {
  const stated = MACHINES.filter((m) => given?.[`${m}Ms`] !== undefined);
  const deadlines = Object.fromEntries(
    MACHINES.map((m) => [m, given?.[`${m}Ms`] ?? DEFAULT_DEADLINES[m]]),
  ) as Deadlines;
  return { deadlines, stated };
}

/** How a deadline is named in a violation: its length, and where it comes from. */
export function deadlineText(machine: Machine, ms: number, stated: readonly Machine[]): string {
  const where = stated.includes(machine) ? `the config's deadlines.${machine}Ms` : "the kit's default";
  return `${ms / 1000} s for ${machine} (${where})`;
}
