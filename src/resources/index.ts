/**
 * Every resource module the simulator serves. The engine merges their routes by operationId and their
 * background jobs by kind; adding a module here is all it takes to serve more of the contract.
 */
import type { ResourceModule } from "../core/route.ts";
import { apiKeys } from "./api-keys.ts";
import { audiences } from "./audiences.ts";
import { checkout } from "./checkout.ts";
import { checkoutPage } from "./checkout-page.ts";
import { collaborators } from "./collaborators.ts";
import { exportsModule } from "./exports/routes.ts";
import { filterAttributes } from "./filter-attributes.ts";
import { formationPreview } from "./formation-preview.ts";
import { formations } from "./formations.ts";
import { identity } from "./identity.ts";
import { members } from "./members.ts";
import { meta } from "./meta.ts";
import { progress } from "./progress.ts";
import { recalibration } from "./recalibration/routes.ts";
import { training } from "./training.ts";

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
