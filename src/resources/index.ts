/**
 * Every resource module the simulator serves. The engine merges their routes by operationId and their
 * background jobs by kind; adding a module here is all it takes to serve more of the contract.
 */
import type { ResourceModule } from "../core/resource.ts";
import { apiKeys } from "./api-keys/api-keys.ts";
import { identity } from "./api-keys/identity.ts";
import { audiences } from "./audiences/audiences.ts";
import { checkout } from "./checkout/checkout.ts";
import { checkoutPage } from "./checkout/checkout-page.ts";
import { collaborators } from "./collaborators/collaborators.ts";
import { exportsModule } from "./exports/exports.ts";
import { filterAttributes } from "./filter-attributes/filter-attributes.ts";
import { formationPreview } from "./formations/formation-preview.ts";
import { formations } from "./formations/formations.ts";
import { members } from "./members/members.ts";
import { meta } from "./meta.ts";
import { progress } from "./progress/progress.ts";
import { training } from "./progress/training.ts";
import { recalibration } from "./recalibration/recalibration.ts";

export const resourceModules: readonly ResourceModule[] = [
  identity,
  apiKeys,
  meta,
  audiences,
  collaborators,
  members,
  filterAttributes,
  training,
  formations,
  formationPreview,
  checkout,
  checkoutPage,
  progress,
  recalibration,
  exportsModule,
];
