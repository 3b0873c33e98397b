/**
 * Every case of the kit, by group, and the checks that run them (a check a group): `cases/keys`,
 * `cases/audiences`, … Each case judges one request of one rule in one world (case.ts).
 */
import type { CheckDef } from "../lib/running/context.ts";
import type { Case } from "./case.ts";
import { KEY_CASES } from "./keys.ts";
import { caseCheck } from "./run.ts";

export const CASE_GROUPS: Record<string, readonly Case[]> = {
  keys: KEY_CASES,
};

export const ALL_CASES: readonly Case[] = Object.values(CASE_GROUPS).flat();

export const caseChecks: CheckDef[] = Object.entries(CASE_GROUPS).map(([group, cases]) =>
  caseCheck(`cases/${group}`, cases),
);
