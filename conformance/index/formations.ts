/** The sentences of filter attributes, Formations and Formation previews. */
import {
  by,
  type Entry,
  HIDDEN,
  internal,
  LABEL,
  labels,
  MESSAGES,
  permits,
  SERVER_FAILURE,
  stated,
  UNKNOWN,
  unreachable,
  unshown,
  WORDING,
} from "./entry.ts";

const NULL_IGNORED = "a null filter value is ignored (selects every Mind)";
const OTHER_FACETS = "a selected attribute's facet counts the whole selection, not every other attribute's";
const TRUNCATED = "filter attributes of an Audience over the Minds read per request not marked truncated";
const VIEWER_MUTATES = "a viewer may delete a shared Formation";
const NEVER_FINISH = "Formation builds never finish";
const STREAM_ORDER = "NDJSON events out of order (status before meta)";
const SUBGROUP_IDS = "two subgroups with the same id accepted";

/** The operations' names. */
const SUMMARIES: Record<string, Entry> = labels(
  "Filter an Audience's members by attributes",
  "List Formations",
  "Create a Formation",
  "Propose a Formation hypothesis",
  "Read a Formation",
  "Delete a Formation",
  "Recompute a Formation",
);

const FILTERS: Record<string, Entry> = {
  "Values of one attribute are alternatives (OR); attributes combine (AND); `null` selects Minds without a value.":
    by(
      "filters/selection",
      NULL_IGNORED,
      "a null filter value selects the Minds with any value instead of those with none",
      "facet counts off by one",
    ),
  "Maps attribute keys to alternative values (OR) or to null (Minds without a value); attributes combine with AND.":
    by("filters/selection", NULL_IGNORED, "facet counts off by one"),
  "Each facet counts the Minds matching every other attribute's selection.": by(
    "filters/selection",
    OTHER_FACETS,
    "facets ignore the selection: every facet counts the whole Audience",
  ),
  "At most 5000 Minds are read per request; `truncated` is true for a larger Audience.": by(
    "filters/truncation",
    TRUNCATED,
  ),
  "True when the Audience has more Minds than one request reads (5000).": by("filters/truncation", TRUNCATED),
  "x-max-minds-read": by("filters/truncation", TRUNCATED),
  "The returned `mindIds` can be passed as `mindIds` when creating an Audience.": unreachable(
    "creating an Audience is not an operation of this interface",
  ),
  "URL-encoded JSON object mapping attribute keys to arrays of values (at most 50 per attribute) or null; at most 8192 characters.":
    by(
      ["filters/limits", "http/layer"],
      "filters of 51 values accepted",
      "a valid long filters refused as too long",
    ),
  "Matches and facets.": LABEL,
  "Invalid ID or invalid filters (not JSON, unknown attribute, wrong value type, too long).": by(
    ["input/invalid-400", "filters/limits"],
    "filters naming an attribute the contract does not list accepted",
    "filters of 51 values accepted",
  ),
  "Invalid filters": WORDING,
  "`country` values are ISO 3166-1 alpha-2 codes.": by(
    "filters/values",
    "country facet values given as country names, not ISO codes",
  ),
  "Zero means the Audience has no filter attributes.": unshown(
    "which Minds hold attributes is shown by no answer but this count",
  ),
  "Matching Mind IDs, sorted by ID.": by("filters/selection", "filter mindIds not sorted"),
};

const LISTING: Record<string, Entry> = {
  "Shared Formations plus the caller's own private ones, newest first (ID breaks ties), soft-deleted excluded.":
    by(
      ["formations/visibility", "formations/pagination", "formations/lifecycle"],
      "a private Formation visible to another collaborator",
      "Formations listed oldest first",
      "a deleted Formation is still readable",
    ),
  "Only one row per auto dimension (ready preferred over building over failed); de-duplication precedes pagination.":
    unshown("a listed row's dimension is not shown (FormationSummary shows only `id`)"),
  "Only offset 0 seeds the canonical default and grounding-derived Formations for collaborators and re-queues at most 100 of the oldest stalled builds, so listed rows may have `status: building`.":
    by(
      "reads/safe",
      "listing Formations rebuilds the first ready one",
      "Formations seeded when the list is read at an offset past 0",
    ),
  "x-background-recovery-limit": internal(
    "which builds stalled is the server's own; a listing is judged by reads/safe",
  ),
  "Follow `nextOffset` while `hasMore` is true.": by("formations/pagination", "wrong pagination hasMore"),
  "A page of Formations.": LABEL,
  "Invalid pagination or ID.": by("formations/pagination", "pagination limit 0 accepted"),
  "Invalid query parameter limit": WORDING,
  "The Audience is missing or not viewable.": by(
    ["ids/unknown-404", "access/hidden-as-404"],
    UNKNOWN,
    HIDDEN,
  ),
  "Formation not found": stated([
    "formations/visibility",
    "access/hidden-as-404",
    "ids/unknown-404",
    "formations/lifecycle",
  ]),
  "The list item form, carrying subgroups and membership counts; its fields beyond `id` are not shown.":
    unshown("a listed Formation's fields beyond `id`"),
};

const FORMATION: Record<string, Entry> = {
  "Any Audience viewer may create; collaborators create `shared` Formations, other viewers create private ones.":
    by("formations/visibility", "a public viewer's Formation is shared"),
  "The build runs in the background; when it runs inline the returned status may already be `ready` or `failed`.":
    by("formations/lifecycle", NEVER_FINISH),
  "All responses are private and non-cacheable.": by(
    "contract/responses",
    "Cache-Control missing on private Audience answers",
  ),
  "The hypothesis, and optionally a name.": LABEL,
  "Accepted; the build has started.": by("formations/lifecycle", NEVER_FINISH),
  "Invalid Formation input": stated("formations/hypothesis-rules"),
  "Audience has no members to categorize": by(
    "formations/create-refusals",
    "a Formation of an Audience with no members is made",
  ),
  "Formations support at most 1000 members (FORMATION_CAP)": by(
    "formations/create-refusals",
    "a Formation of an Audience past the member cap is made (no FORMATION_CAP)",
  ),
  "x-member-limits": by(
    "formations/create-refusals",
    "a Formation of an Audience with no members is made",
    "a Formation of an Audience past the member cap is made (no FORMATION_CAP)",
  ),
  "The Audience is missing or not viewable, or the created Formation was deleted before acknowledgement.": by(
    ["ids/unknown-404", "access/hidden-as-404"],
    HIDDEN,
  ),
  "Visible to any Audience viewer for shared Formations and to the creator for private ones.": by(
    "formations/visibility",
    "a private Formation visible to another collaborator",
  ),
  "The Formation.": LABEL,
  "Formation ID is required": by("ids/messages", MESSAGES),
  "Invalid formation ID format": by("ids/messages", MESSAGES),
  "Missing or not visible.": by("ids/unknown-404", UNKNOWN),
  "Soft delete.": by("formations/lifecycle", "a deleted Formation is still readable"),
  "Collaborators may delete shared Formations and their own private ones; other viewers only their own private ones; otherwise 404.":
    by("formations/mutability", VIEWER_MUTATES),
  "Missing, or the caller may not mutate it.": by(
    "formations/mutability",
    VIEWER_MUTATES,
    "another collaborator may recompute a private Formation",
  ),
  "Moves a ready, failed or stuck building Formation back to `building`; members are re-sorted against the stored hypothesis and subgroups are swapped in place when done.":
    by("formations/lifecycle", "a recompute replaces the stored hypothesis"),
  "Same mutability rules as delete.": by(
    "formations/mutability",
    "another collaborator may recompute a private Formation",
  ),
  "Accepted (usually `building`).": permits('"usually" lets a recompute finish before it answers'),
  "A Formation is created `building`, from an Audience of 1 to 1000 members.": by(
    ["formations/lifecycle", "formations/create-refusals"],
    "a Formation of an Audience with no members is made",
    "a Formation of an Audience past the member cap is made (no FORMATION_CAP)",
  ),
  "Its build ends `ready` or `failed` (a failed one with a safe failure reason).": by(
    "formations/lifecycle",
    NEVER_FINISH,
  ),
  "A user-created Formation is `ready` only when at least two of its primary buckets hold members.": unshown(
    "which members a subgroup holds is not shown: a Formation's subgroups are objects of unshown shape",
  ),
  "Stored diagnostics are omitted; a failed build exposes only safe failure reasons.": internal(
    "which diagnostics a build stores, and which reasons are safe, are the server's own",
  ),
  "Fields beyond those listed are not shown.": unshown("a Formation's further fields"),
  "Live build progress; null once ready, and null when the stored progress is malformed.": by(
    "formations/lifecycle",
    "a ready Formation keeps its build progress",
  ),
  "The stored hypothesis; an invalid legacy proposal is returned as an empty object.": unreachable(
    "legacy proposals exist only in stores older than this interface; nothing a client sends makes one",
  ),
  "While building, `hypothesis.subgroups` describes the proposed buckets.": by(
    "formations/lifecycle",
    "a recompute replaces the stored hypothesis",
  ),
  "Subgroups with member assignments and confidences; may be empty while building.": permits(
    "it lets a building Formation show no subgroups",
  ),
  "Defaults to a compact form of `hypothesis.intent`.": permits(
    "the description does not define the compact form, so any name drawn from the intent fits",
  ),
  "Non-empty after trimming; `unanswered`, `__unanswered` and `__other` are reserved.": by(
    "formations/hypothesis-rules",
    "reserved subgroup id accepted",
  ),
  "Non-empty after trimming.": by("formations/hypothesis-rules", "a blank intent accepted"),
  "x-unique-item-properties": by("formations/hypothesis-rules", SUBGROUP_IDS),
  "2 to 15 buckets; ids unique and labels unique.": by(
    "formations/hypothesis-rules",
    SUBGROUP_IDS,
    "sixteen subgroups accepted",
  ),
};

const PREVIEW: Record<string, Entry> = {
  "Nothing is persisted.": by("preview/persists-nothing", "a preview persists a Formation"),
  "Any Audience viewer may call.": by("formations/visibility", "a public viewer's preview refused as hidden"),
  "`Accept: application/json` gives one document; `application/x-ndjson` gives an event stream (one JSON object per line: `meta`, `status`, `subgroups` or `error`, `done` last).":
    by("preview/stream", "NDJSON stream without `done`", STREAM_ORDER),
  "Quality weights, wildcards and media parameters in `Accept` are respected; with no preference the stream is used; when neither is acceptable the answer is 406 before generation.":
    by(
      "preview/stream",
      "Accept quality weights ignored (the first type listed wins)",
      "no 406 when Accept allows nothing supported",
    ),
  "Model failures give 500 `Failed to propose subgroups` in JSON mode, and an in-band `error` event followed by `done` with HTTP 200 once a stream has started.":
    SERVER_FAILURE,
  "Disconnecting aborts generation.": internal("what a server stops doing after the client left is not seen"),
  "Returned proposals satisfy the creation input rules.": by(
    ["preview/stream", "formations/hypothesis-rules"],
    "a preview proposes a reserved subgroup id",
  ),
  "The proposal, as a document or as a stream.": LABEL,
  "UTF-8, one JSON object per line; `contentSchema` describes each line.": by(
    "preview/stream",
    "a preview stream line that is not JSON",
  ),
  "Invalid JSON or input, or malformed priorHypothesis.": by(
    "input/invalid-400",
    "500 for a malformed JSON body",
  ),
  "Invalid preview input": WORDING,
  "`Accept` allows no supported representation.": by(
    "preview/stream",
    "no 406 when Accept allows nothing supported",
  ),
  "Not Acceptable: use application/json or application/x-ndjson": WORDING,
  "Storage or setup failure, or (JSON mode) a failed proposal.": SERVER_FAILURE,
  "Failed to propose subgroups": SERVER_FAILURE,
  "x-soft-warn-from": by("preview/thresholds", "softWarn only above its threshold, not from it"),
  "x-hard-cap": by("preview/thresholds", "preview of an Audience past the hard cap without hardCapExceeded"),
  "At most 2000 characters after trimming.": by(
    "preview/thresholds",
    "userInput of 2001 characters accepted",
  ),
  "Default: a request to split the audience into meaningful subgroups.": internal(
    "what the model is asked is the server's own",
  ),
  "True from 50 members.": by("preview/thresholds", "softWarn only above its threshold, not from it"),
  "True above 1000 members.": by(
    "preview/thresholds",
    "preview of an Audience past the hard cap without hardCapExceeded",
  ),
  "One line of the `application/x-ndjson` preview stream.": LABEL,
  "Order: `meta`, `status`, then `subgroups` (or `error` on failure), and `done` last, always.": by(
    "preview/stream",
    STREAM_ORDER,
    "NDJSON stream without `done`",
  ),
};

export const FORMATION_SENTENCES: Record<string, Entry> = {
  ...SUMMARIES,
  ...FILTERS,
  ...LISTING,
  ...FORMATION,
  ...PREVIEW,
};
