/**
 * One deliberate fault per case, each paired with the check that must report it. The faults are written
 * against the simulator's behaviour (a wrapper around its fetch), never inside it, and grouped as the checks
 * are: the faults of `checks/<path>.ts` are in `faults/<path>.ts`. Many only show across two calls (a removal
 * and the access after it, a duplicate and what it holds, a boundary approached from below); the sentence
 * index (conformance/index) names, for each sentence of openapi.json, the faults that break it.
 */

import type { FaultCase } from "./fault-kit.ts";
import { CASES_FAULTS } from "./faults/cases.ts";
import { API_KEYS_FAULTS } from "./faults/domain/api-keys.ts";
import { AUDIENCES_FAULTS } from "./faults/domain/audiences.ts";
import { CHECKOUT_FAULTS } from "./faults/domain/checkout.ts";
import { COLLABORATORS_FAULTS } from "./faults/domain/collaborators.ts";
import { DELETE_CASCADE_FAULTS } from "./faults/domain/delete-cascade.ts";
import { DUPLICATE_FAULTS } from "./faults/domain/duplicate.ts";
import { EXPORTS_FAULTS } from "./faults/domain/exports.ts";
import { FILTER_ATTRIBUTES_FAULTS } from "./faults/domain/filter-attributes.ts";
import { FORMATIONS_FAULTS } from "./faults/domain/formations.ts";
import { LIST_CALLS_FAULTS } from "./faults/domain/list-calls.ts";
import { MEMBERS_FAULTS } from "./faults/domain/members.ts";
import { PROGRESS_FAULTS } from "./faults/domain/progress.ts";
import { RECALIBRATE_FAULTS } from "./faults/domain/recalibrate.ts";
import { RECALIBRATION_FAULTS } from "./faults/domain/recalibration.ts";
import { TIMELINES_FAULTS } from "./faults/domain/timelines.ts";
import { METHODS_FAULTS } from "./faults/generic/methods.ts";
import { OPTIONAL_BODIES_FAULTS } from "./faults/generic/optional-bodies.ts";
import { GENERIC_FAULTS } from "./faults/generic.ts";
import { THRESHOLDS_FAULTS } from "./faults/limits/thresholds.ts";
import { LIMITS_FAULTS } from "./faults/limits.ts";
import { RATELIMIT_FAULTS } from "./faults/ratelimit.ts";
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
