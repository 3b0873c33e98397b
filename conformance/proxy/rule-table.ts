/**
 * Every rule of the kit's catalogue, and whether the proxy judges it on live traffic: how, or why one
 * exchange (or one key's sequence of them) cannot show it. The README's table is these rows
 * (`proxyRuleRows`); a self-test keeps the two alike and fails on a catalogue rule missing here.
 */
import type { RuleId } from "../lib/description/rules.ts";

type Row = { judged: string } | { not: string };

const RELATIONS = "who may see or change what follows from teams, Studies and invitations no exchange shows";
const STATE = "it needs the upstream's state before and after, which the traffic does not show";

export const PROXY_RULES: Record<RuleId, Row> = {
  "contract/responses": {
    judged: "every answer: a documented status, its schema, headers and Content-Type; never a 5xx",
  },
  "errors/envelope": { judged: "every error body, and what the proxy answers itself" },
  "auth/401": {
    judged: "a request without a key (the client's), answered 401 `Unauthorized` (the upstream's)",
  },
  "ids/malformed-400": {
    judged: "a malformed path ID (the client's), answered 400, or 404 where no 400 is documented",
  },
  "ids/messages": { judged: "the words of that 400, from `x-error-messages`" },
  "ids/unknown-404": { not: "whether an ID names anything is the upstream's state" },
  "access/hidden-as-404": { not: RELATIONS },
  "input/invalid-400": {
    judged: "parameters and bodies by their schemas (typed query content too), and the 400 they get",
  },
  "input/optional-body": { judged: "a request without the body its operation makes optional is not refused" },
  "input/media-type-415": {
    judged: "a body that is not JSON, and the 415; never 415 for a JSON type with parameters",
  },
  "input/body-size-413": { judged: "a body past `x-max-body-bytes`, and the 413" },
  "http/wrong-method": {
    judged: "a method the path does not serve: a 4xx in the envelope, 405 with `Allow`",
  },
  "http/layer": {
    not: "what the HTTP layer refuses never reaches the upstream: the proxy answers it, in the envelope",
  },
  "versioning/prefixes": {
    not: "it needs the same call under both prefixes; a client makes whichever it makes",
  },
  "limits/rate-limit": {
    judged:
      "rate-limit headers on every v1 answer; a request sent before its 429's `Retry-After` ran out (the client's)",
  },
  "keys/me": { not: "whose key it is, only the upstream knows" },
  "keys/secret-once": {
    judged: "a listing with `key`, or any answer that shows again a secret created through the proxy",
  },
  "keys/listing-order": { judged: "a key listing not by `createdAt` descending" },
  "reads/safe": { not: STATE },
  "keys/last-used": { not: "a key is used where the proxy does not see it too" },
  "keys/name-limit": {
    not: "the stored name is the upstream's; a request's name is judged by its schema (input/invalid-400)",
  },
  "keys/subscription-sso": { not: "an account's subscription and SSO link are in no answer" },
  "keys/delete-immediate": {
    judged:
      "a deleted key that still works (keys deleted through the proxy); the client using a key it deleted (the client's)",
  },
  "keys/own-account-only": { not: "which account a key belongs to is in no answer" },
  "audience/read-roles": { not: RELATIONS },
  "audience/member-role": { not: RELATIONS },
  "audience/sharing-fields": { not: RELATIONS },
  "audience/file-redaction": { not: RELATIONS },
  "audience/members-preview": { not: "what a bounded profile leaves out is not shown by the schema" },
  "audience/update-rules": { not: STATE },
  "audience/team-share-owner": { not: RELATIONS },
  "audience/delete-owner-only": { judged: "an Audience read after its deletion was answered" },
  "audience/delete-cascade": { not: "Minds are not served: only a later add shows one gone" },
  "audience/follow": { not: "no answer shows who follows an Audience" },
  "duplicate/default-name": { not: STATE },
  "duplicate/replay": {
    judged:
      "an idempotent replay answered as new work; a key past 128 characters, ignored (the client's warning)",
  },
  "duplicate/plan-limit": { not: "a plan's allowance and usage are in no answer but the refusal" },
  "duplicate/contents": { not: STATE },
  "collaborators/managers": { judged: "a collaborator listing not oldest first" },
  "collaborators/owner-not-removable": { not: "the owner's user ID is in no answer the proxy can rely on" },
  "collaborators/removal-revokes": {
    not: "it needs the removed person's later requests, under their own key",
  },
  "members/add-rules": { not: "which Minds a caller may use is the upstream's state" },
  "members/ids-limit": {
    judged: "by the body's schema (its `maxItems`, before deduplication): input/invalid-400",
  },
  "members/remove-rules": { not: STATE },
  "members/counts-follow": { not: STATE },
  "members/plan-cap": { not: "a plan's allowance and usage are in no answer but the refusal" },
  "filters/selection": {
    judged: "a filter answer that disagrees with itself (unsorted or repeated `mindIds`, counts)",
  },
  "filters/values": { judged: "country values that are not ISO 3166-1 alpha-2 codes" },
  "filters/limits": { judged: "by the query's schema and typed content: input/invalid-400" },
  "filters/truncation": {
    not: "an Audience's size past one request's reach is not in the answer that would show it",
  },
  "formations/visibility": { not: RELATIONS },
  "formations/mutability": { not: RELATIONS },
  "formations/lifecycle": { judged: "a Formation read after its deletion; a ready Formation with progress" },
  "formations/create-refusals": { not: STATE },
  "formations/pagination": { judged: "a page after `hasMore: true` that holds nothing" },
  "formations/hypothesis-rules": { judged: "by the body's schema (sizes, reserved ids): input/invalid-400" },
  "preview/stream": { judged: "the NDJSON events (order, shape, `done` last), judged when the stream ends" },
  "preview/thresholds": {
    judged: "`softWarn` and `hardCapExceeded` against the `memberCount` of the same answer",
  },
  "preview/persists-nothing": { not: STATE },
  "progress/readiness": { judged: "readiness against the member rows of the same answer" },
  "research/stages": { not: "stages are seen only by reading the same research over time" },
  "recalibrate/owner-only": { not: RELATIONS },
  "recalibrate/replay": { judged: "a replay of a finished operation answered with new work" },
  "recalibrate/pending-limit": { not: "how many edits wait is the upstream's state" },
  "recalibrate/status-url": { not: "it needs the operation followed over time" },
  "recalibrate/calibration-active": { not: "it needs the operation and the Audience read together" },
  "exports/kinds": { judged: "a format the kind does not offer, answered as if it did" },
  "exports/job": { not: "it needs the job followed over time" },
  "checkout/create": {
    judged: "by the body's schema (strict, one line item) and `API-Version`: input/invalid-400",
  },
  "checkout/own-sessions": { not: "which account owns a session is in no answer" },
  "checkout/lifecycle": { not: "it needs a session's states followed over time" },
  "checkout/idempotency": { judged: "the same `Idempotency-Key` answered with a new session" },
};

/** The README's table rows, one per catalogue rule. */
export function proxyRuleRows(): string[] {
  return Object.entries(PROXY_RULES).map(([id, row]) =>
    "judged" in row ? `| \`${id}\` | yes | ${row.judged} |` : `| \`${id}\` | no | ${row.not} |`,
  );
}
