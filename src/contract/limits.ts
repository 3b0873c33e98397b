/**
 * Every limit the contract states, read from `openapi.json` in one place: the simulator enforces these
 * numbers and the conformance kit probes them, so a limit changed in the contract changes both.
 * `limits.test.ts` fails when the contract states a limit that is not here, or this names one it does not.
 */
import { type Pointers, resolvePointer } from "./document.ts";

const OP = (path: string, method: string) => `#/paths/${path.replaceAll("/", "~1")}/${method}`;
const SCHEMA = (name: string) => `#/components/schemas/${name}`;

/** Where each limit lives in the contract. */
export const LIMIT_POINTERS = {
  rateLimitPerMinute: "#/x-rate-limit/defaultLimit",
  rateLimitWindowSeconds: "#/x-rate-limit/windowSeconds",
  headerBytes: "#/x-max-header-bytes",
  apiKeyName: `${SCHEMA("CreateApiKeyRequest")}/properties/name/x-max-trimmed-length`,
  apiKeyNameStored: `${SCHEMA("ApiKeyName")}/maxLength`,
  duplicateName: `${SCHEMA("DuplicateAudienceRequest")}/properties/name/maxLength`,
  idempotencyKey: "#/components/parameters/IdempotencyKey/schema/x-ignored-beyond-length",
  acpIdempotencyKey: `${OP("/checkout_sessions", "post")}/parameters/0/schema/maxLength`,
  checkoutLineItems: `${SCHEMA("CheckoutSessionCreateRequest")}/properties/line_items/maxItems`,
  billingCountry: `${SCHEMA("CheckoutMetadata")}/properties/billingCountry/maxLength`,
  mindIds: `${SCHEMA("AddMembersRequest")}/properties/mindIds/maxItems`,
  mindIdsBeforeDeduplication: `${SCHEMA("AddMembersRequest")}/properties/mindIds/x-max-items-before-deduplication`,
  membersBody: `${OP("/audiences/{audienceId}/members", "post")}/x-max-body-bytes`,
  filtersChars: `${OP("/audiences/{audienceId}/filter-attributes", "get")}/parameters/0/schema/maxLength`,
  filterValuesPerAttribute: `${SCHEMA("FilterSelection")}/additionalProperties/oneOf/0/maxItems`,
  facetValues: `${SCHEMA("FilterAttributes")}/properties/facets/items/properties/values/maxItems`,
  mindsRead: `${OP("/audiences/{audienceId}/filter-attributes", "get")}/x-max-minds-read`,
  formationPage: "#/components/parameters/Limit/schema/maximum",
  formationPageReturned: `${SCHEMA("Pagination")}/properties/limit/maximum`,
  formationListItems: `${SCHEMA("FormationList")}/properties/data/maxItems`,
  backgroundRecovery: `${OP("/audiences/{audienceId}/formations", "get")}/x-background-recovery-limit`,
  formationBody: `${OP("/audiences/{audienceId}/formations", "post")}/x-max-body-bytes`,
  formationMembersMin: `${OP("/audiences/{audienceId}/formations", "post")}/x-member-limits/min`,
  formationMembersMax: `${OP("/audiences/{audienceId}/formations", "post")}/x-member-limits/max`,
  subgroupsMin: `${SCHEMA("FormationHypothesis")}/properties/subgroups/minItems`,
  subgroupsMax: `${SCHEMA("FormationHypothesis")}/properties/subgroups/maxItems`,
  previewBody: `${OP("/audiences/{audienceId}/formations/preview", "post")}/x-max-body-bytes`,
  previewSoftWarnFrom: `${OP("/audiences/{audienceId}/formations/preview", "post")}/x-soft-warn-from`,
  previewHardCap: `${OP("/audiences/{audienceId}/formations/preview", "post")}/x-hard-cap`,
  userInput: `${SCHEMA("FormationPreviewRequest")}/properties/userInput/x-max-trimmed-length`,
  recalibrateBody: `${OP("/audiences/{audienceId}/recalibrate", "post")}/x-max-body-bytes`,
  pendingRecalibrations: `${OP("/audiences/{audienceId}/recalibrate", "post")}/x-max-pending`,
  operationId:
    "#/paths/~1audiences~1{audienceId}~1recalibrate~1operations~1{operationId}/parameters/1/schema/maxLength",
} as const;

export type LimitName = keyof typeof LIMIT_POINTERS;

export type Limits = Readonly<Record<LimitName, number>>;

/** Every limit of a document, read through its pointers; a limit it does not state as a number throws. */
export function readLimits(resolve: Pointers["resolvePointer"]): Limits {
  const numberAt = (pointer: string): number => {
    const v = resolve(pointer);
    if (typeof v !== "number") throw new Error(`The contract sets no number at ${pointer}`);
    return v;
  };
  return Object.fromEntries(
    Object.entries(LIMIT_POINTERS).map(([name, pointer]) => [name, numberAt(pointer)]),
  ) as Record<LimitName, number>;
}

/** This package's own description's limits (the simulator's). */
export const LIMITS: Limits = readLimits(resolvePointer);
