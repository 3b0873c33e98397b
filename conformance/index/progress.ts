/** The sentences of progress, recalibration (and its operations) and exports. */
import {
  by,
  type Entry,
  internal,
  LABEL,
  permits,
  SERVER_FAILURE,
  stated,
  unreachable,
  unshown,
  WORDING,
} from "./entry.ts";

const READINESS = "readiness leaves training members that can chat out of ready, isReady and learning";
const STATUS_URL = "the recalibration statusUrl stays queued while the operation runs";
const NO_VALIDATION = "validation report export without a scored validation answered 200";
const RESEARCH_DATA = unreachable(
  "whether research finds data, or a chart fits a distribution, is the server's own research; no request decides it",
);
const UNSHOWN_BODY = unshown("the recalibrate body's field types and the grounding it changes are not shown");

const PROGRESS: Record<string, Entry> = {
  "Read an Audience's progress": LABEL,
  "Member training, readiness, research and coverage.": LABEL,
  "Research is never a reason to wait: the Audience is usable while it researches.": by(
    "progress/readiness",
    "isReady false while research runs",
  ),
  "The progress document.": LABEL,
  "The profile and system prompt exist.": internal(
    "profiles and system prompts are not served by this interface",
  ),
  "Present and true while a failed member is retrained; trainingStatus is then `queued`.": by(
    "progress/readiness",
    "a member being repaired shows trainingStatus running",
  ),
  "Members being retrained count here.": by(
    "progress/readiness",
    "readiness.training leaves out members in training",
  ),
  "Always 0.": by("progress/readiness", "progress reports failed members"),
  "Every member can chat.": by("progress/readiness", READINESS),
  "A Study started now runs at once.": by("progress/readiness", "startsNow true while members train"),
  "It does when nothing is training and the members that failed for good are few enough to leave out (at least one Mind and at least half of the members still answer, or can no longer be retrained automatically); otherwise the Study waits.":
    by(
      "progress/readiness",
      "startsNow true while members train",
      "startsNow false although nothing trains and every member can chat",
    ),
  "A member whose last training attempt failed is reported as `queued` with `beingRepaired: true`, and is retrained automatically.":
    by("progress/readiness", "a member being repaired shows trainingStatus running"),
  "Members still being prepared that a Study started now runs without; they join when ready.": by(
    "progress/readiness",
    "leftOut counts none of the members still in training",
  ),
  "Ready members still learning from sources.": by("progress/readiness", READINESS),
  "Every member can chat and none is learning.": by(
    "progress/readiness",
    "fullyTrained while members still learn",
  ),
  "Its shape is not shown.": unshown("a coverage dimension's distribution"),
  "For Go deeper.": LABEL,
  "Epoch milliseconds.": by(
    "contract/responses",
    "reconciledAt given as an ISO date-time, not epoch milliseconds",
  ),
};

const RECALIBRATE: Record<string, Entry> = {
  "Recalibrate an Audience": LABEL,
  "Refreshes the stored grounding of a saved Audience and re-allocates its members.": UNSHOWN_BODY,
  "The caller is the owner (confirmed staff with direct admin collaboration or an active owner-issued support grant may make composition amendments only).":
    by("recalibrate/owner-only", "a direct member may recalibrate the Audience"),
  "Research mode (default) re-runs deep research; selection mode (`distributions` present) only replaces the active distribution set.":
    UNSHOWN_BODY,
  "`deepen` (Go deeper) runs in the background and returns 202 at once with `data.research` and `data.progressUrl`.":
    by(
      "research/stages",
      "a deepen asked while research runs does not say it is queued behind it",
      "research.stage goes back to researching after recalibrating",
    ),
  "Named fields; see the schema.": LABEL,
  "Replay of a terminal operation: the retained receipt; no work repeated.": by(
    "recalibrate/replay",
    "recalibrate replay repeats the work (202 again)",
  ),
  "Accepted: an operation receipt, or a Go deeper research job.": by(
    ["recalibrate/status-url", "research/stages"],
    "the recalibration statusUrl is not served",
  ),
  "Invalid payload or ID.": by("input/invalid-400", "500 for a malformed JSON body"),
  "Invalid recalibrate payload": stated("input/invalid-400"),
  "Invalid distributions payload": stated("input/invalid-400"),
  "Missing or invalid API key.": by("auth/401", "403 instead of 401 for a missing key"),
  Unauthorized: by("auth/401", "a 401 whose statusMessage is not `Unauthorized`"),
  "Member cap or Mind quota would be exceeded.": unreachable(
    "how many members research adds is the server's own; no request sets it past a cap",
  ),
  "Ten edits of this Audience are already waiting.": by(
    "recalibrate/pending-limit",
    "an eleventh pending recalibration accepted",
  ),
  "Ten recalibrations are already pending for this audience (RECALIBRATION_IN_PROGRESS)": by(
    "recalibrate/pending-limit",
    "an eleventh pending recalibration accepted",
  ),
  "x-max-pending": by("recalibrate/pending-limit", "an eleventh pending recalibration accepted"),
  "The body exceeds 32 MiB.": by("input/body-size-413", "a body over x-max-body-bytes answered 400, not 413"),
  "The Audience could not be grounded.": RESEARCH_DATA,
  "Could not find sufficient scientific data to ground this audience.": WORDING,
  "Try a more specific description.": WORDING,
  "The requested distribution cannot be answered by any chart (AUDIENCE_DISTRIBUTION_NOT_APPLICABLE)":
    RESEARCH_DATA,
  "This audience has no grounding to recalibrate.": WORDING,
  "Run a research recalibration first.": WORDING,
  "The run failed after it started; the calibration marker is cleared so a retry is possible.":
    SERVER_FAILURE,
  "Recalibration failed": SERVER_FAILURE,
  "Research unavailable and no first-party distributions usable (only for an Audience without saved charts, or a full `query` override).":
    SERVER_FAILURE,
  "Research is unavailable": SERVER_FAILURE,
  "Go deeper could not be queued, or its instruction could not be read; nothing changed; retry shortly.":
    SERVER_FAILURE,
  "Go deeper could not be queued": SERVER_FAILURE,
  "The instruction could not be read (AUDIENCE_EDIT_UNREAD)": SERVER_FAILURE,
  "Named fields; their types and the rest of the body are not shown by the description.": UNSHOWN_BODY,
  "`distributions` present selects selection mode; otherwise research mode.": UNSHOWN_BODY,
  "Go deeper: researches every standard dimension reported missing or assumed plus `deepen.topics`.":
    internal("which dimensions research covers is the server's own research"),
  "Classified as an adjustment or an additive instruction.": internal("how an instruction is classified"),
  "Join the source bundle first.": UNSHOWN_BODY,
  "A distribution to add.": LABEL,
  "Full override of the research query.": internal("the research query is the server's own"),
  "Selection mode: replaces the active distribution set.": UNSHOWN_BODY,
  "True while a recalibration runs.": by(
    "recalibrate/calibration-active",
    "calibration.active false while a recalibration runs",
  ),
  "`researching`: background web research runs, or waits for a run to end.": by(
    "research/stages",
    "research reports phase researched while it runs",
  ),
  "`researched`: research is done, or finished at creation.": by(
    "research/stages",
    "completed research reports phase researching",
  ),
  "`usable`: research failed, and the Audience stays on its first phase.": RESEARCH_DATA,
  "In order: `researching`, `waiting_for_runs`, `recalibrating`, `done`; a stage never goes back.": by(
    "research/stages",
    "research.stage goes back to researching after recalibrating",
  ),
  "`waiting_for_runs`: research is done and waits for a Study run or validation using these Minds to end before members change.":
    unshown("Study runs and validations are not served by this interface, so none can be made to wait on"),
  "True when queued behind research that already runs.": by(
    "research/stages",
    "a deepen asked while research runs does not say it is queued behind it",
  ),
};

const OPERATIONS: Record<string, Entry> = {
  "The `id` of a recalibration operation receipt.": LABEL,
  "Read a recalibration operation": LABEL,
  "The operation's receipt, as `statusUrl` in the 202 of `POST /audiences/{audienceId}/recalibrate` names it: poll it to follow the operation from `queued` through `running` to `completed` or `failed`.":
    by(
      "recalibrate/status-url",
      "the recalibration statusUrl is not served",
      STATUS_URL,
      "a completed recalibration reads as running again ten seconds later",
    ),
  "Readable by anyone who may read the Audience.": by(
    "recalibrate/status-url",
    "the recalibration statusUrl is readable by an outsider",
  ),
  "The operation receipt.": LABEL,
  "Malformed Audience ID.": by("ids/malformed-400", "malformed audience ID answered 404 instead of 400"),
  "The Audience does not exist or is not visible to the caller, or it has no such operation.": by(
    ["ids/unknown-404", "recalibrate/status-url"],
    "unknown ID on a read answered 200 instead of 404",
    "the recalibration statusUrl is readable by an outsider",
  ),
  "Present once completed; its shape beyond `requestedTopics` is not shown.": unshown(
    "an operation result's shape beyond `requestedTopics`",
  ),
  "Present once failed; its shape is not shown.": unshown("an operation error's shape"),
};

const EXPORTS: Record<string, Entry> = {
  "Export a brief or validation report": LABEL,
  "Kind `brief` (default) offers pdf, md, docx, pptx; kind `validation_report` offers pdf, md, docx, xlsx, needs edit access and at least one scored validation.":
    by(
      "exports/kinds",
      "a brief is not offered as pptx (400), one of the formats the description names for it",
      "a brief offered as xlsx",
      "a validation report exported for a viewer without edit access",
      NO_VALIDATION,
    ),
  "`brief` offers pdf, md, docx, pptx; `validation_report` offers pdf, md, docx, xlsx.": by(
    "exports/kinds",
    "a brief is not offered as pptx (400), one of the formats the description names for it",
    "a brief offered as xlsx",
  ),
  "`markdown` is accepted as md.": by("exports/kinds", "`markdown` refused as an export format"),
  "Kind and format: `brief` (the default kind) offers pdf, md (or markdown), docx and pptx; `validation_report` offers pdf, md (or markdown), docx and xlsx.":
    by(
      "exports/kinds",
      "a brief is not offered as pptx (400), one of the formats the description names for it",
      "a brief offered as xlsx",
      "`markdown` refused as an export format",
    ),
  "A cached artifact returns at once; otherwise the job is queued and polled through export-status.": by(
    "exports/job",
    "an export job never becomes downloadable",
  ),
  "A cached artifact or a queued export job.": LABEL,
  "A format the kind does not offer, or a malformed ID.": by("exports/kinds", "a brief offered as xlsx"),
  "Format xlsx is not available for kind brief": WORDING,
  "No scored validation to report.": by("exports/kinds", NO_VALIDATION),
  "No scored validation is available for this audience (VALIDATION_REPORT_UNAVAILABLE)": by(
    "exports/kinds",
    NO_VALIDATION,
  ),
  "Read an export's status": LABEL,
  "May report `unavailable` for a validation report of an Audience with no scored validation.": permits(
    '"may": the status is allowed, not owed',
  ),
  "The status.": LABEL,
  "Invalid query value or malformed ID.": by(
    "input/invalid-400",
    "a query value outside its enum is ignored (200 instead of 400)",
  ),
  "Invalid export kind": WORDING,
  "Download an export": LABEL,
  "The export artifact.": by(
    "exports/job",
    "an export read before it is ready answers 200 with an empty artifact",
  ),
  "Invalid export format": WORDING,
  "The Audience is missing or not visible, or no artifact is ready.": by(
    "exports/job",
    "an export read before it is ready answers 200 with an empty artifact",
    "a finished export is gone again ten seconds later: its download answers 404",
  ),
  "A cached artifact or a queued export job; its fields are not shown by the description.":
    unshown("an export answer's fields"),
  "The export status; fields beyond a status value (which may be `unavailable` for a validation report of an Audience with no scored validation) are not shown.":
    unshown("an export status's fields beyond its status"),
};

export const PROGRESS_SENTENCES: Record<string, Entry> = {
  ...PROGRESS,
  ...RECALIBRATE,
  ...OPERATIONS,
  ...EXPORTS,
};
