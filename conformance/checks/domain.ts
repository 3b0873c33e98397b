/**
 * Domain rules from the API description that no schema states, one file per resource in `domain/`
 * (api-keys, audiences, collaborators, members, filter-attributes, formations, progress, exports,
 * checkout, recalibrate, recalibration, and the cascade, copies, listings and timelines across them). This
 * is the list the suite runs. Each family of checks is a file here (`generic`, `limits`, `domain`,
 * `ratelimit`, `wire`, `stateful`), its parts in the folder of its name; the self-test's faults follow the
 * same files (`selftest/faults/`).
 */
import type { CheckDef } from "../lib/running/context.ts";
import { identity, keyAccess, keySecrets, selfDelete } from "./domain/api-keys.ts";
import {
  audienceDelete,
  fileRedaction,
  followRules,
  membersPreview,
  updateRules,
  visibility,
} from "./domain/audiences.ts";
import { checkout } from "./domain/checkout.ts";
import { collaboratorRemoval, collaborators } from "./domain/collaborators.ts";
import { deleteCascade } from "./domain/delete-cascade.ts";
import { duplicateContents, duplicatePlanLimit, duplicateReplay } from "./domain/duplicate.ts";
import { exportsRules } from "./domain/exports.ts";
import { facets, largeAudience } from "./domain/filter-attributes.ts";
import {
  formationPages,
  formationRefusals,
  formationVisibility,
  largePreview,
  previewStream,
} from "./domain/formations.ts";
import { listCalls } from "./domain/list-calls.ts";
import { membersRules, planLimit } from "./domain/members.ts";
import { progressRules } from "./domain/progress.ts";
import { pendingRecalibrations, recalibrateOwnerOnly, recalibrateReplay } from "./domain/recalibrate.ts";
import { recalibrationStatus } from "./domain/recalibration.ts";
import { exportJob, researchStages } from "./domain/timelines.ts";

export const domainChecks: CheckDef[] = [
  audienceDelete,
  deleteCascade,
  pendingRecalibrations,
  recalibrateReplay,
  recalibrateOwnerOnly,
  recalibrationStatus,
  identity,
  keySecrets,
  keyAccess,
  selfDelete,
  listCalls,
  visibility,
  membersPreview,
  fileRedaction,
  updateRules,
  collaborators,
  collaboratorRemoval,
  membersRules,
  planLimit,
  facets,
  largeAudience,
  formationPages,
  formationVisibility,
  formationRefusals,
  previewStream,
  largePreview,
  progressRules,
  exportsRules,
  exportJob,
  researchStages,
  followRules,
  duplicateReplay,
  duplicateContents,
  duplicatePlanLimit,
  checkout,
];
