/**
 * Domain rules from the API description that no schema states, one file per resource beside this one
 * (api-keys, audiences, collaborators, members, filter-attributes, formations, progress, exports,
 * checkout, recalibrate, recalibration). This is the list the suite runs.
 */
import type { CheckDef } from "../lib/running/context.ts";
import { identity, keyAccess, keySecrets, selfDelete } from "./api-keys.ts";
import {
  audienceDelete,
  fileRedaction,
  followRules,
  membersPreview,
  updateRules,
  visibility,
} from "./audiences.ts";
import { checkout } from "./checkout.ts";
import { collaboratorRemoval, collaborators } from "./collaborators.ts";
import { deleteCascade } from "./delete-cascade.ts";
import { duplicateContents, duplicatePlanLimit, duplicateReplay } from "./duplicate.ts";
import { exportsRules } from "./exports.ts";
import { facets, largeAudience } from "./filter-attributes.ts";
import {
  formationPages,
  formationRefusals,
  formationVisibility,
  largePreview,
  previewStream,
} from "./formations.ts";
import { listCalls } from "./list-calls.ts";
import { membersRules, planLimit } from "./members.ts";
import { progressRules } from "./progress.ts";
import { pendingRecalibrations, recalibrateOwnerOnly, recalibrateReplay } from "./recalibrate.ts";
import { recalibrationStatus } from "./recalibration.ts";
import { exportJob, researchStages } from "./timelines.ts";

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
