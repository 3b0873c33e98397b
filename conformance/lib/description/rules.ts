/**
 * The rules of the API description the kit checks, one line each, by the operations they govern. Every
 * check names the rules it covers (`CheckDef.rules`), so the coverage report can say which rule of which
 * operation no check reached in a run; `rules.test.ts` (self-test) fails when a rule has no check.
 */
import { ownContract } from "../../../src/contract/contract.ts";

/** The catalogue quotes the description the kit was written from (a run's own contract may differ). */
const L = ownContract.limits;

const ALL = "*";

export const RULES = {
  // Errors, authentication, the contract as a whole.
  "contract/responses": [
    ALL,
    "every answer has a documented status, its schema, headers and Content-Type, and no 5xx",
  ],
  "errors/envelope": [
    ALL,
    "every error body is { statusCode, statusMessage, message, url, error: true, data? }",
  ],
  "auth/401": [ALL, "a missing or invalid key gives 401 `Unauthorized`"],
  "ids/malformed-400": [ALL, "malformed IDs give 400 on endpoints that list 400"],
  "ids/messages": [
    ALL,
    "a blank or malformed path ID is answered with the exact message its parameter's x-error-messages names",
  ],
  "ids/unknown-404": [ALL, "an ID that names nothing gives 404"],
  "access/hidden-as-404": [
    ALL,
    "unauthorized resource access is reported as 404 to avoid revealing existence",
  ],
  "input/invalid-400": [ALL, "invalid JSON, bodies and query values are 400 and change nothing"],
  "input/optional-body": [ALL, "an operation whose request body is optional is served without one"],
  "input/media-type-415": [
    ALL,
    "a body that is not application/json is 415; application/json with parameters, in any case, is JSON",
  ],
  "input/body-size-413": [
    "createFormation,previewFormation,addMembers,recalibrateAudience",
    `${L.membersBody / 1024} KiB bodies (${L.recalibrateBody / 1024 / 1024} MiB on recalibrate); more is 413`,
  ],
  "http/wrong-method": [ALL, "a method a path does not serve is refused in the envelope and changes nothing"],
  "http/layer": [
    ALL,
    "what the HTTP layer refuses is a 4xx in the envelope; targets and heads the contract allows are served",
  ],
  "versioning/prefixes": [ALL, "the interface is served under /api/v1 and /v1 alike"],
  "limits/rate-limit": [
    ALL,
    "per-account fixed window; RateLimit-Limit/Remaining; 429 with Retry-After; other accounts unaffected",
  ],
  // Identity and API keys.
  "keys/me": ["getMe", "GET /auth/me returns the key owner's user ID"],
  "keys/secret-once": [
    "createApiKey,listApiKeys",
    "the raw key is returned once, in the creation response; listings never return it",
  ],
  "keys/listing-order": ["listApiKeys", "keys are listed by createdAt descending"],
  "reads/safe": [
    "listApiKeys,listFormations,listCollaborators",
    "a list call changes nothing: listed again, a listing is the same and the Audience keeps its updatedAt; it may move only its own key's lastUsedAt, and a key never used stays null",
  ],
  "keys/last-used": [
    "listApiKeys",
    "a key used for a request is listed with lastUsedAt: set, and not before the key was created",
  ],
  "keys/name-limit": [
    "createApiKey",
    `name at most ${L.apiKeyName} characters after trimming; empty, null or missing stores null`,
  ],
  "keys/subscription-sso": [
    "listApiKeys,createApiKey,deleteApiKey",
    "403 without an active subscription; 403 creating on an SSO-linked account",
  ],
  "keys/delete-immediate": [
    "deleteApiKey",
    "a deleted key stops authenticating immediately, everywhere, its own included",
  ],
  "keys/own-account-only": [
    "listApiKeys,deleteApiKey",
    "a key is listed and deleted only by its account (404 otherwise)",
  ],
  // Audiences.
  "audience/read-roles": [
    "getAudience",
    "readable by owner, direct members, team members when team-shared, anyone when public, Study members",
  ],
  "audience/member-role": [
    "getAudience,updateAudience",
    "currentMemberRole is the caller's role (public_viewer for public and Study viewers)",
  ],
  "audience/sharing-fields": [
    "getAudience",
    "isSharedWithTeam, isLinkSharingEnabled, publicShareId only to collaborators",
  ],
  "audience/file-redaction": [
    "getAudience",
    "uploaded-file URLs are redacted for public and Study-cascade viewers",
  ],
  "audience/members-preview": [
    "getAudience",
    "members=preview gives bounded profiles without reviewed-field metadata",
  ],
  "audience/update-rules": [
    "updateAudience",
    "name required and trimmed; flags apply only as booleans; isLinkSharingEnabled echoed; collaborators only",
  ],
  "audience/team-share-owner": [
    "updateAudience",
    "only the owner may change isSharedWithTeam (403 TEAM_SHARE_OWNER_ONLY)",
  ],
  "audience/delete-owner-only": [
    "deleteAudience",
    "owner only; anyone else 404 and nothing deleted; a deleted Audience is gone",
  ],
  "audience/delete-cascade": [
    "deleteAudience",
    "deleting an Audience deletes the caller's member Minds no other Audience holds and keeps the others",
  ],
  "audience/follow": [
    "followAudience,unfollowAudience",
    "follow a public Audience 200 (404 otherwise); unfollow 200; both repeatable: following again keeps following",
  ],
  "duplicate/default-name": [
    "duplicateAudience",
    "a copy made without a name is named after the original: its name followed by a copy marker",
  ],
  "duplicate/replay": [
    "duplicateAudience",
    `201 a new copy; 200 the same copy on replay of the key; keys over ${L.idempotencyKey} ignored; name 1..${L.duplicateName}`,
  ],
  "duplicate/plan-limit": [
    "duplicateAudience",
    "403 PlanLimitError when the copy would exceed the plan's Mind or member allowance",
  ],
  "duplicate/contents": [
    "duplicateAudience",
    "private; independent Mind copies, grounding, sources, Formations, validation history; no sharing or links",
  ],
  // Collaborators and members.
  "collaborators/managers": [
    "listCollaborators,removeCollaborator",
    "owner or direct admin only (403 COLLABORATORS_MANAGER_ONLY); owner excluded; oldest first",
  ],
  "collaborators/owner-not-removable": [
    "removeCollaborator",
    "removing the owner is 400 COLLABORATOR_IS_OWNER",
  ],
  "collaborators/removal-revokes": [
    "removeCollaborator",
    "a removed collaborator loses access at once; removing again is 404",
  ],
  "members/add-rules": [
    "addMembers",
    "owner only; Minds owned or public, else 404 and nothing added; added = distinct IDs; mindId wins",
  ],
  "members/ids-limit": [
    "addMembers",
    `${L.mindIdsBeforeDeduplication} IDs before deduplication; more is 400`,
  ],
  "members/remove-rules": [
    "removeMember",
    "owner only; removes from the Audience and every Formation subgroup; 204 for non-members too",
  ],
  "members/counts-follow": [
    "getAudience,getFilterAttributes,getAudienceProgress,getFormation",
    "after a change of members, every count and list agrees",
  ],
  "members/plan-cap": ["addMembers", "past the plan's member cap: 403 PlanLimitError with limit and current"],
  // Filter attributes.
  "filters/selection": [
    "getFilterAttributes",
    "values OR, attributes AND, null selects Minds without a value; mindIds sorted; facets",
  ],
  "filters/values": ["getFilterAttributes", "country values are ISO 3166-1 alpha-2 codes"],
  "filters/limits": [
    "getFilterAttributes",
    `filters at most ${L.filtersChars} characters and ${L.filterValuesPerAttribute} values per attribute`,
  ],
  "filters/truncation": ["getFilterAttributes", `at most ${L.mindsRead} Minds read; truncated says so`],
  // Formations.
  "formations/visibility": [
    "getFormation,listFormations,createFormation",
    "collaborators make shared Formations, other viewers private ones; private ones only for their creator",
  ],
  "formations/mutability": [
    "deleteFormation,recomputeFormation",
    "collaborators mutate shared and own private; other viewers only own private; else 404",
  ],
  "formations/lifecycle": [
    "createFormation,getFormation,recomputeFormation,deleteFormation",
    "building to ready or failed, progress null once ready; recompute keeps the hypothesis; deleted is 404",
  ],
  "formations/create-refusals": [
    "createFormation",
    `an Audience with no members, or over ${L.formationMembersMax} (FORMATION_CAP), is 400 and nothing is made`,
  ],
  "formations/pagination": [
    "listFormations",
    `limit 1..${L.formationPage}, offset >= 0; total, hasMore, nextOffset agree; no phantom page`,
  ],
  "formations/hypothesis-rules": [
    "createFormation,previewFormation",
    `${L.subgroupsMin} to ${L.subgroupsMax} subgroups, unique non-empty ids and labels, reserved ids refused`,
  ],
  "preview/stream": [
    "previewFormation",
    "NDJSON meta, status, subgroups (or error), done; JSON mode; 406 when nothing acceptable",
  ],
  "preview/thresholds": [
    "previewFormation",
    `softWarn from ${L.previewSoftWarnFrom} members; hardCapExceeded above ${L.previewHardCap}; userInput at most ${L.userInput} characters`,
  ],
  "preview/persists-nothing": ["previewFormation", "a preview persists nothing"],
  // Progress, recalibration, exports.
  "progress/readiness": [
    "getAudienceProgress",
    "readiness agrees with the member rows (isReady: every member can chat; learning: ready members still learning), also while added members train; failed always 0; beingRepaired only with trainingStatus queued",
  ],
  "research/stages": [
    "recalibrateAudience,getAudienceProgress",
    "deepen answers 202 at once; stages run researching, waiting_for_runs, recalibrating, done",
  ],
  "recalibrate/owner-only": [
    "recalibrateAudience",
    "the caller is the owner; anyone else gets 404 and nothing is queued",
  ],
  "recalibrate/replay": [
    "recalibrateAudience",
    "202 accepted; a replay of a terminal operation is 200 with the retained receipt",
  ],
  "recalibrate/pending-limit": [
    "recalibrateAudience",
    `${L.pendingRecalibrations} edits may wait; one more is 409 RECALIBRATION_IN_PROGRESS`,
  ],
  "recalibrate/calibration-active": [
    "getAudience,recalibrateAudience",
    "calibration.active is true while a recalibration of the Audience is queued or running, false once none is",
  ],
  "recalibrate/status-url": [
    "getRecalibrationOperation",
    "the operation's statusUrl is served to readers and moves to a terminal state",
  ],
  "exports/kinds": [
    "exportAudience,getExportStatus",
    "every format the description names per kind is offered (brief: pdf, md, docx, pptx; validation report: pdf, md, docx, xlsx), the other is 400; validation report needs edit access and a scored validation (409, `unavailable`)",
  ],
  "exports/job": [
    "exportAudience,getExportStatus,downloadExport",
    "a cached artifact at once, or a queued job polled until it downloads",
  ],
  // Hosted checkout.
  "checkout/create": [
    "createCheckoutSession",
    "strict body; one line item; API-Version; known prices; 409 price or purchase changed",
  ],
  "checkout/own-sessions": [
    "getCheckoutSession,refreshCheckoutSession,cancelCheckoutSession,completeCheckoutSession",
    "operations only on sessions owned by the caller",
  ],
  "checkout/lifecycle": [
    "refreshCheckoutSession,cancelCheckoutSession,completeCheckoutSession",
    "refresh immutable; cancel an open session; complete requires_escalation until the buyer completes",
  ],
  "checkout/idempotency": [
    "createCheckoutSession",
    "the same Idempotency-Key and body replay the session; a different purchase never makes a second one",
  ],
} as const satisfies Record<string, readonly [string, string]>;

export type RuleId = keyof typeof RULES;

/**
 * The rules of the contract's own text, each judged on every request or answer by the check of the same
 * name (a documented status, a schema, a header, the envelope), and the proxy's own: not in the catalogue
 * above, which holds the description's sentences. A violation's `ruleId` is one of these or a RuleId.
 */
export const CONTRACT_RULES = [
  "response/no-5xx",
  "response/documented-status",
  "response/schema",
  "response/content-type",
  "response/error-envelope",
  "response/rate-limit-headers",
  "response/non-cacheable",
  "response/refusal",
  "request/unknown-path",
  "request/wrong-method",
  "request/path-parameter",
  "request/parameter",
  "request/no-key",
  "request/content-type",
  "request/body-size",
  "request/body",
  "stream/preview-events",
  "proxy/upstream-unreachable",
] as const;
export type ContractRuleId = (typeof CONTRACT_RULES)[number];

/** Any rule a violation is reported under. */
export type AnyRuleId = RuleId | ContractRuleId;

/**
 * Where the API description states each rule: the section of the rule's family, or of the rule itself where
 * it sits elsewhere. A violation names it, so that the reader finds the sentence the line sums up.
 */
const FAMILY_SECTIONS: Record<string, string> = {
  contract: "Endpoints",
  errors: "Errors › Format",
  auth: "Authentication",
  ids: "Errors › Status codes",
  access: "Authentication",
  input: "Errors › Status codes",
  http: "Errors",
  versioning: "Versioning",
  limits: "Limits",
  keys: "Endpoints › Identity and API keys",
  reads: "Resources and their fields",
  audience: "Endpoints › Audiences: read, update, delete",
  duplicate: "Endpoints › Audiences: duplicate, follow",
  collaborators: "Endpoints › Audiences: collaborators",
  members: "Endpoints › Audiences: members",
  filters: "Endpoints › Audiences: filter attributes",
  formations: "Endpoints › Audiences: Formations",
  preview: "Endpoints › Audiences: Formations",
  progress: "Endpoints › Audiences: progress",
  research: "States and transitions › Research stage",
  recalibrate: "Endpoints › Audiences: recalibrate",
  exports: "Endpoints › Audiences: exports",
  checkout: "Endpoints › Hosted checkout (ACP)",
};
const RULE_SECTIONS: Partial<Record<RuleId, string>> = {
  "input/body-size-413": "Limits",
  "keys/subscription-sso": "Authentication",
  "audience/follow": "Endpoints › Audiences: duplicate, follow",
  "filters/values": "Resources and their fields",
  "members/plan-cap": "Errors › Plan-limit error (403)",
  "duplicate/plan-limit": "Errors › Plan-limit error (403)",
  "formations/lifecycle": "States and transitions › Formation status",
  "preview/stream": "Events",
};

export function ruleSection(id: RuleId): string {
  return RULE_SECTIONS[id] ?? (FAMILY_SECTIONS[id.split("/")[0] as string] as string);
}

/** The operations a rule governs (every operation for `*`). */
export function ruleOperations(id: RuleId, all: readonly string[]): string[] {
  const ops = RULES[id][0] as string;
  return ops === ALL ? [...all] : ops.split(",");
}
