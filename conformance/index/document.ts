/**
 * The sentences of the document as a whole: its info, servers, tags and `x-` extensions, and the shared
 * components (security, headers, parameters, responses, the error envelope and the plan-limit error).
 */
import { by, DOCUMENT, type Entry, LABEL, labels, MESSAGES, permits } from "./entry.ts";

const MALFORMED = "malformed ID on a write answered 404 instead of 400";
const ENVELOPE = "envelope statusCode differs from the HTTP status";
const PLAN = ["members/plan-cap", "duplicate/plan-limit"] as const;

const INFO: Record<string, Entry> = {
  "Synthetic respondents: API keys, Audiences of Minds, Formations, progress, recalibration, exports and hosted checkout.":
    LABEL,
  "The HTTP JSON API for building and querying synthetic respondents, as described by the service owners.":
    LABEL,
  "Every versioned path is served under `/api/v1` and, on the API host, under `/v1` (the two top-level `servers`).":
    by("versioning/prefixes", "/v1 prefix not served"),
  "Hosted checkout (ACP) is served under `/api/acp`; this document is served at `/_openapi.json`.": by(
    ["contract/responses", "checkout/create"],
    "/_openapi.json is not served",
    "ACP API-Version ignored",
  ),
  "All errors use one envelope (`ErrorEnvelope`); programmatic handling relies on `statusCode` and, when present, `data.code` and `data.limitType`.":
    by(["errors/envelope", "ids/malformed-400"], ENVELOPE),
  "Other `data` keys are reserved and unknown keys may appear.": permits(
    "it lets a server add keys to `data`; the kit's schemas leave `data` open",
  ),
  "Rules that JSON Schema cannot state are carried as documented `x-` extensions so tools can read them:":
    DOCUMENT,
  "What the description leaves unshown (Mind, Study, chat and invitation records; most of AudienceMindSummary, FormationSummary and export payloads; the recalibrate body's field types) is left open here rather than invented.":
    DOCUMENT,
};

/** Each extension, as the list in `info.description` defines it and where it stands. */
const EXTENSIONS: Record<string, Entry> = {
  "`x-max-body-bytes` (operation): the request body cap; a larger body gets 413.": by(
    "input/body-size-413",
    "a body of exactly x-max-body-bytes refused with 413",
    "a body over x-max-body-bytes answered 400, not 413",
  ),
  "x-max-body-bytes": by("input/body-size-413", "a body over x-max-body-bytes answered 400, not 413"),
  "`x-rate-limit` (document): the per-account fixed-window rate limit on every v1 request.": by(
    "limits/rate-limit",
    "no 429 at all (the limiter never refuses)",
    "the rate-limit budget is per key, not per account",
  ),
  "x-rate-limit": by("limits/rate-limit", "no 429 at all (the limiter never refuses)"),
  "`x-max-items-before-deduplication` (array schema): the item cap counts duplicates.": by(
    "members/ids-limit",
    "one member ID past the limit accepted",
  ),
  "`x-max-minds-read` (operation): how many Minds one request reads at most.": by(
    "filters/truncation",
    "filter attributes of an Audience over the Minds read per request not marked truncated",
  ),
  "`x-max-trimmed-length` / `x-min-trimmed-length` (string schema): length limits that apply after trimming white space.":
    by(
      ["keys/name-limit", "audience/update-rules"],
      "API key name of 101 characters accepted",
      "PUT takes a blank name as no change",
    ),
  "`x-unique-item-properties` (array schema): properties whose values must be unique across items.": by(
    "formations/hypothesis-rules",
    "two subgroups with the same id accepted",
  ),
  "`x-ignored-beyond-length` (string header): longer (or blank) values are ignored rather than rejected.": by(
    "duplicate/replay",
    "129-character idempotency key honoured (not ignored)",
  ),
  "`x-error-messages` (path parameter): the exact messages for a missing or malformed value.": by(
    "ids/messages",
    MESSAGES,
  ),
  "x-error-messages": by("ids/messages", MESSAGES),
  "`x-max-pending` (operation): how many pending operations of this kind one resource may hold.": by(
    "recalibrate/pending-limit",
    "an eleventh pending recalibration accepted",
  ),
  "`x-soft-warn-from` / `x-hard-cap` (operation): member-count thresholds of Formation previews.": by(
    "preview/thresholds",
    "softWarn only above its threshold, not from it",
    "preview of an Audience past the hard cap without hardCapExceeded",
  ),
  "x-max-header-bytes": by(
    "http/layer",
    "node:http defaults in front: a 16 KiB head refuses valid long filters",
  ),
};

const SERVERS_AND_TAGS: Record<string, Entry> = labels(
  "Main host: versioned API under /api/v1",
  "API host: the same interface under /v1",
  "Identity and API-key management.",
  "Reading, updating, deleting, duplicating and following Audiences.",
  "People who accepted an invitation to an Audience.",
  "Adding Minds to and removing them from an Audience.",
  "Faceted filtering of an Audience's members.",
  "Persisted segmentations of an Audience's members, and streamed previews.",
  "Member training, readiness, research and coverage of an Audience.",
  "Refreshing an Audience's grounding and re-allocating its members.",
  "Audience briefs and validation reports as files.",
  "Hosted checkout (Agentic Commerce Protocol) under /api/acp.",
  "The machine-readable description of this interface.",
);

const COMPONENTS: Record<string, Entry> = {
  // A 204's description on three operations.
  "Deleted.": LABEL,
  "`Authorization: Bearer <API_KEY>`; keys start with `service_`.": by(
    "auth/401",
    "any service_ key authenticates as the owner",
    "403 instead of 401 for a missing key",
  ),
  "Missing or invalid keys give 401 `Unauthorized`.": by(
    "auth/401",
    "403 instead of 401 for a missing key",
    "a 401 whose statusMessage is not `Unauthorized`",
  ),
  "The current per-minute ceiling of the caller's account.": by(
    ["contract/responses", "limits/rate-limit"],
    "RateLimit headers dropped on v1 responses",
    "RateLimit-Remaining counts every account's requests",
  ),
  "Requests remaining in the current one-minute window.": by(
    "limits/rate-limit",
    "RateLimit-Remaining one too high on every served request",
    "RateLimit-Remaining rises within a window (every third request shows more left)",
  ),
  "Seconds to wait after a 429.": by(
    "limits/rate-limit",
    "Retry-After missing on 429",
    "Retry-After: 0 on a 429 (retry at once, and be refused again)",
  ),
  "Private Audience responses are non-cacheable.": by(
    "contract/responses",
    "Cache-Control missing on private Audience answers",
  ),
  "The audience ID (UUID).": by("ids/malformed-400", "malformed audience ID answered 404 instead of 400"),
  "The audience ID, read as a plain string on this endpoint: an ID that names no viewable Audience gives 404.":
    by("ids/unknown-404", "a blank ID the contract allows answered 400 as if it were missing"),
  "The formation ID (UUID).": by("ids/malformed-400", MALFORMED),
  "The mind ID (UUID).": by("ids/malformed-400", MALFORMED),
  "The collaborator's user ID (UUID).": by("ids/malformed-400", MALFORMED),
  "The API key ID.": LABEL,
  "The checkout session ID (a string).": by("checkout/own-sessions", "another account may cancel a session"),
  "Page size, 1 to 100.": by("formations/pagination", "pagination limit 0 accepted"),
  "Rows to skip.": by("formations/pagination", "wrong pagination hasMore"),
  "Makes a retried duplicate return the same copy (200) instead of a new one.": by(
    "duplicate/replay",
    "duplicate replay makes a new copy",
  ),
  "At most 128 characters; blank or longer keys are ignored, not rejected.": by(
    "duplicate/replay",
    "129-character idempotency key honoured (not ignored)",
  ),
  "x-ignored-beyond-length": by("duplicate/replay", "129-character idempotency key honoured (not ignored)"),
  "Rate limit exceeded for the account's one-minute window.": by(
    "limits/rate-limit",
    "no 429 at all (the limiter never refuses)",
    "the rate-limit budget is per key, not per account",
  ),
  "Authentication required.": by("auth/401", "403 instead of 401 for a missing key"),
  "No such session owned by the caller.": by("checkout/own-sessions", "another account may cancel a session"),
  "The request has a body that is not JSON (its Content-Type is not `application/json` or a `+json` type).":
    by(
      "input/media-type-415",
      "a JSON body sent as text/plain or form data is taken as JSON",
      "application/json with a charset parameter refused as 415",
    ),
  "Nothing is changed.": by(
    "input/media-type-415",
    "a JSON body sent as text/plain or form data is taken as JSON",
  ),
  "The request target is longer than twice the longest one this document allows (the longest prefix and path, every path and query parameter at its maximum length, each character percent-encoded in the worst case: four UTF-8 bytes, twelve characters).":
    by("http/layer", "a request target past twice the longest allowed is routed (no 414)"),
  "The margin lets a value just past its maximum reach validation and get its 400.": by(
    ["http/layer", "filters/limits"],
    "a valid long filters refused as too long",
  ),
  "Answered before routing, so `url` is empty.": by(
    "http/layer",
    "a 414's envelope names the request path in url",
  ),
  "The request head is larger than the longest request target served (see `UriTooLong`) plus `x-max-header-bytes` of header fields.":
    by("http/layer", "node:http defaults in front: a 16 KiB head refuses valid long filters"),
};

const ERRORS: Record<string, Entry> = {
  "The body of every error response.": by(
    "errors/envelope",
    "405 for a wrong method as plain text",
    "node:http defaults in front: bare 400 for no Host, bare 417 for an unknown Expect",
  ),
  "The HTTP status.": by(["errors/envelope", "ids/malformed-400"], ENVELOPE),
  "Human-readable, set per error (wording may change).": permits(
    "it lets the words change; only x-error-messages and named codes are exact",
  ),
  "Same content as statusMessage for v1 errors; reserved for extra context on 5xx in debug builds.": by(
    ["errors/envelope", "ids/unknown-404"],
    "an error's message differs from its statusMessage",
  ),
  "The request path.": by(["errors/envelope", "ids/unknown-404"], "envelope url is not the request path"),
  "Always true.": by(["errors/envelope", "ids/unknown-404"], "error: false in the error envelope"),
  "Present only when machine-readable detail exists: `code`, `limitType` and other keys.": permits(
    "whether detail exists is the server's to say; `data` is judged where the description names its keys",
  ),
  "`expectedNoise` is internal telemetry and not part of the contract; unknown keys may appear.": permits(
    "it lets `data` carry keys the contract does not name",
  ),
  "Machine-readable error code, e.g. `TEAM_REQUIRED`.": by(
    "audience/team-share-owner",
    "sharing with the team is allowed to an owner in no team (no TEAM_REQUIRED)",
  ),
  "403 for a plan limit: the error envelope with `data.code` = `PLAN_LIMIT`.": by(
    PLAN,
    "PlanLimitError without `current`",
  ),
  "`limit` and `current` are authoritative for that request (account-specific overrides can differ from the plan defaults).":
    by(PLAN, "PlanLimitError without `current`", "the member that reaches the cap is refused"),
  "`sparks`: Minds owned; `flows`: chats created, including panel sessions; `messages`: messages within one chat or panel; `groupMembers`: Minds in one group.":
    by(PLAN, "a PlanLimitError names a limitType the contract does not list"),
  "The allowance for that plan and limit type.": by(PLAN, "the member that reaches the cap is refused"),
  "The caller's usage at request time.": by(PLAN, "PlanLimitError without `current`"),
  "The plan called Individual in display text is `premium`.": by(
    PLAN,
    "a PlanLimitError names the Individual plan `individual`, not `premium`",
  ),
};

export const DOCUMENT_SENTENCES: Record<string, Entry> = {
  ...INFO,
  ...EXTENSIONS,
  ...SERVERS_AND_TAGS,
  ...COMPONENTS,
  ...ERRORS,
};
