/**
 * One deliberate fault per case, each paired with the check that must report it. The faults are written
 * against the simulator's behaviour (a wrapper around its fetch), never inside it, and grouped as the checks
 * are: the faults of `checks/<file>.ts` are in `faults/<file>.ts`.
 */

import type { FaultCase } from "./fault-kit.ts";
import { API_KEYS_FAULTS } from "./faults/api-keys.ts";
import { AUDIENCES_FAULTS } from "./faults/audiences.ts";
import { CASES_FAULTS } from "./faults/cases.ts";
import { CHECKOUT_FAULTS } from "./faults/checkout.ts";
import { COLLABORATORS_FAULTS } from "./faults/collaborators.ts";
import { DELETE_CASCADE_FAULTS } from "./faults/delete-cascade.ts";
import { DUPLICATE_FAULTS } from "./faults/duplicate.ts";
import { EXPORTS_FAULTS } from "./faults/exports.ts";
import { FILTER_ATTRIBUTES_FAULTS } from "./faults/filter-attributes.ts";
import { FORMATIONS_FAULTS } from "./faults/formations.ts";
import { GENERIC_FAULTS } from "./faults/generic.ts";
import { LIMITS_FAULTS } from "./faults/limits.ts";
import { LIST_CALLS_FAULTS } from "./faults/list-calls.ts";
import { MEMBERS_FAULTS } from "./faults/members.ts";
import { METHODS_FAULTS } from "./faults/methods.ts";
import { OPTIONAL_BODIES_FAULTS } from "./faults/optional-bodies.ts";
import { PROGRESS_FAULTS } from "./faults/progress.ts";
import { RATELIMIT_FAULTS } from "./faults/ratelimit.ts";
import { RECALIBRATE_FAULTS } from "./faults/recalibrate.ts";
import { RECALIBRATION_FAULTS } from "./faults/recalibration.ts";
import { THRESHOLDS_FAULTS } from "./faults/thresholds.ts";
import { TIMELINES_FAULTS } from "./faults/timelines.ts";
import { WIRE_FAULTS } from "./faults/wire.ts";
import { WORLD_FAULTS } from "./faults/world.ts";

export type { FaultCase } from "./fault-kit.ts";

/** Every fault case, by the checks files whose checks must report them. */
export const FAULTS: FaultCase[] = [
  ...API_KEYS_FAULTS,
  ...AUDIENCES_FAULTS,
  ...CASES_FAULTS,
  ...CHECKOUT_FAULTS,
  ...COLLABORATORS_FAULTS,
  ...DELETE_CASCADE_FAULTS,
  ...DUPLICATE_FAULTS,
  ...EXPORTS_FAULTS,
  ...FILTER_ATTRIBUTES_FAULTS,
  ...FORMATIONS_FAULTS,
  ...GENERIC_FAULTS,
  ...LIMITS_FAULTS,
  ...LIST_CALLS_FAULTS,
  ...MEMBERS_FAULTS,
  ...METHODS_FAULTS,
  ...OPTIONAL_BODIES_FAULTS,
  ...PROGRESS_FAULTS,
  ...RATELIMIT_FAULTS,
  ...RECALIBRATE_FAULTS,
  ...RECALIBRATION_FAULTS,
  ...THRESHOLDS_FAULTS,
  ...TIMELINES_FAULTS,
  ...WIRE_FAULTS,
  ...WORLD_FAULTS,
];
