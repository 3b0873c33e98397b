/** The sentences of an Audience: read, update, delete, duplicate, follow, collaborators and members. */
import type { Entry } from "./entry.ts";
import {
  by,
  HIDDEN,
  internal,
  LABEL,
  labels,
  MESSAGES,
  permits,
  SERVER_FAILURE,
  stated,
  UNKNOWN,
  unshown,
  WORDING,
} from "./entry.ts";

const HIDDEN_WRITE = "403 instead of 404 for a write to an Audience the caller cannot view";
const MALFORMED = "malformed audience ID answered 404 instead of 400";
const SHARING = "sharing fields shown to public viewers";
const REDACTION = "uploaded-file URLs not redacted for Study viewers";
const TEAM_OWNER = "a direct member may change team sharing";
const NO_TEAM = "sharing with the team is allowed to an owner in no team (no TEAM_REQUIRED)";
const MANAGERS = "a direct member can remove collaborators";
const NOT_OWNER_ADDS = "an Audience admin may add members";
const MIND_NOT_USABLE = "a Mind the caller may not use is added";

/** The operations' names. */
const SUMMARIES: Record<string, Entry> = labels(
  "Read an Audience",
  "Update an Audience",
  "Delete an Audience",
  "Duplicate an Audience",
  "Follow a public Audience",
  "Unfollow an Audience",
  "List collaborators",
  "Remove a collaborator",
  "Add Minds to an Audience",
  "Remove a Mind from an Audience",
);

const READ: Record<string, Entry> = {
  "Readable by the owner, direct members, members of the owner's team when team-shared, any authenticated caller when public, and members of a Study that contains the Audience.":
    by(
      "audience/read-roles",
      "a team member cannot read a team-shared Audience",
      "a Study member cannot read the Audience",
    ),
  "Sharing fields are returned only to collaborators; uploaded-file URLs are redacted for public and Study-cascade viewers.":
    by(["audience/sharing-fields", "audience/file-redaction"], SHARING, REDACTION),
  "`preview` gives bounded display profiles without reviewed-field metadata; omitted gives the complete detail.":
    by("audience/members-preview", "members=preview ignored (the complete detail)"),
  "The Audience.": LABEL,
  "Malformed audience ID or query.": by(
    ["ids/malformed-400", "input/invalid-400"],
    MALFORMED,
    "a query value outside its enum is ignored (200 instead of 400)",
  ),
  "Audience ID is required": by("ids/messages", MESSAGES),
  "Invalid audience ID format": by("ids/messages", MESSAGES),
  "Missing or not viewable.": by(["ids/unknown-404", "access/hidden-as-404"], UNKNOWN, HIDDEN),
  "Audience not found": stated([
    "audience/read-roles",
    "ids/unknown-404",
    "access/hidden-as-404",
    "audience/delete-owner-only",
    "members/remove-rules",
    "recalibrate/owner-only",
    "errors/envelope",
  ]),
  "The caller's role as a collaborator.": by(
    "audience/member-role",
    "a public viewer's currentMemberRole is `viewer`",
  ),
  "The caller's role; `public_viewer` for public and Study-cascade viewers.": by(
    "audience/member-role",
    "a public viewer's currentMemberRole is `viewer`",
  ),
  "A member Mind.": LABEL,
  "Fields beyond `id` are not shown by the description; servers may add more.": permits(
    "it lets a server add fields to a member Mind",
  ),
  "May arrive later, after image regeneration.": permits("it lets `profileImageUrl` be absent for a while"),
  "A link in the source bundle; fields beyond `url` are not shown.": unshown("a source link's other fields"),
  "A file in the source bundle.": LABEL,
  "For public and Study-cascade viewers its uploaded-file URL is redacted.": by(
    "audience/file-redaction",
    REDACTION,
  ),
  "The source bundle.": LABEL,
  "An adjustment; its shape is not shown.": unshown("an adjustment's shape"),
  "The stored grounding (evidence-based distributions or charts); null when none is stored.": unshown(
    "what is stored as grounding is not shown by any other answer, so null cannot be told from a lost one",
  ),
  "Its fields beyond `sources` are not shown.": unshown("the grounding's fields beyond `sources`"),
  "For public and Study-cascade viewers uploaded-file URLs in `sources` are redacted.": by(
    "audience/file-redaction",
    REDACTION,
  ),
  "A grounding source; its fields are not shown.": unshown("a grounding source's fields"),
  "The Audience as `GET` returns it: member Minds with their cohort profiles, the caller's role, stored grounding, the source bundle, member-derived baseline distributions and the transient recalibration state.":
    LABEL,
  "Formations are not embedded.": permits(
    "servers may add fields the description does not show, so no field name marks an embedded Formation list",
  ),
  "`isSharedWithTeam`, `isLinkSharingEnabled` and `publicShareId` are returned only to collaborators (owner, direct member, team member).":
    by("audience/sharing-fields", SHARING),
  "Further fields are not shown by the description.": unshown("the Audience's further fields"),
  "The member Minds, each with its cohort profile.": LABEL,
  "Returned only to collaborators.": by("audience/sharing-fields", SHARING),
};

const UPDATE: Record<string, Entry> = {
  "Allowed for collaborators (owner, direct members, members of the owner's team when team-shared).": by(
    "audience/update-rules",
    "a direct member's update refused as hidden",
  ),
  "`isPublic` and `isSharedWithTeam` apply only when sent as booleans.": by(
    "audience/update-rules",
    'PUT reads a flag sent as a string ("false") as a boolean',
  ),
  "Only the owner may change `isSharedWithTeam`, and sharing requires the owner to be in a team.": by(
    "audience/team-share-owner",
    TEAM_OWNER,
    NO_TEAM,
  ),
  "`isLinkSharingEnabled` cannot be changed here and is echoed.": by(
    "audience/update-rules",
    "PUT changes isLinkSharingEnabled",
  ),
  "The new name, and optionally sharing flags.": LABEL,
  "The updated Audience.": by("audience/update-rules", "PUT answers the new name but keeps the old one"),
  "Invalid input.": by("input/invalid-400", "500 for a malformed JSON body"),
  "name is required": stated("audience/update-rules"),
  "Sharing requires the owner to be in a team (TEAM_REQUIRED)": by("audience/team-share-owner", NO_TEAM),
  "A non-owner tried to change team sharing.": by("audience/team-share-owner", TEAM_OWNER),
  "Only the owner can change team sharing (TEAM_SHARE_OWNER_ONLY)": by(
    "audience/team-share-owner",
    TEAM_OWNER,
  ),
  "No edit access (public and Study-link viewers included), or missing.": by(
    "access/hidden-as-404",
    HIDDEN_WRITE,
  ),
  "x-min-trimmed-length": by("audience/update-rules", "PUT takes a blank name as no change"),
  "Required on every call; trimmed; must not be empty.": by(
    "audience/update-rules",
    "PUT takes a blank name as no change",
    "PUT does not trim the name",
  ),
  "Applied only when sent as a boolean; any other value leaves it unchanged.": by(
    "audience/update-rules",
    'PUT reads a flag sent as a string ("false") as a boolean',
  ),
  "`true` lists the Audience in the marketplace and queues a cover image.": internal(
    "the marketplace and cover images are not served by this interface; what being public opens is judged by audience/read-roles",
  ),
  "Only the owner may change it, and only while in a team.": by(
    "audience/team-share-owner",
    TEAM_OWNER,
    NO_TEAM,
  ),
};

const DELETE_DUPLICATE_FOLLOW: Record<string, Entry> = {
  "Owner only.": by(
    ["audience/delete-owner-only", "members/remove-rules"],
    "a collaborator (not the owner) can delete the Audience",
    "an Audience admin may remove members",
  ),
  "Cascades to member Minds that the caller owns and that belong to no other Audience (with their training data and Study links); Minds owned by others and Minds in another Audience are kept.":
    by(
      "audience/delete-cascade",
      "deleting an Audience keeps the Minds it alone held",
      "deleting an Audience deletes its Minds that another Audience holds",
    ),
  "Missing, or the caller is not the owner.": by(
    "audience/delete-owner-only",
    "a collaborator (not the owner) can delete the Audience",
  ),
  "Creates a private copy with independent copies of every member Mind (profiles, knowledge, embeddings), grounding, sources, formations and finished validation history.":
    by("duplicate/contents", "a duplicate holds the original's Minds, not copies"),
  "Sharing, public links and running jobs are not copied.": by(
    "duplicate/contents",
    "a duplicate keeps team sharing and the public link",
    "a copy made while a recalibration runs is calibrating too (the running job copied)",
  ),
  "Optional.": by("input/optional-body", "a request without its optional body refused"),
  "Idempotent replay: the copy made earlier with the same idempotency key.": by(
    "duplicate/replay",
    "duplicate replay makes a new copy",
  ),
  "A new copy.": by("duplicate/replay", "duplicate replay makes a new copy"),
  "name must be between 1 and 200 characters": by(
    "duplicate/replay",
    "a copy's name of 201 characters is cut to 200 instead of refused",
  ),
  "The caller cannot edit the Audience, or the copy would exceed the plan's Mind or member allowance.": by(
    ["duplicate/plan-limit", "duplicate/replay"],
    "a duplicate past the owner's Mind allowance is made",
    "a public viewer may duplicate the Audience",
  ),
  "The Audience does not exist or is not visible to the caller.": by(
    ["ids/unknown-404", "access/hidden-as-404"],
    UNKNOWN,
    HIDDEN_WRITE,
  ),
  "Default: the original name followed by a copy marker.": by(
    "duplicate/default-name",
    "a copy made without a name keeps the original's name exactly",
  ),
  "The saved copy.": LABEL,
  "Fields beyond `data.id` are not shown by the description.": unshown(
    "the saved copy's fields beyond `data.id`",
  ),
  "Follows a public Audience.": by(
    "audience/follow",
    "a second follow undoes the first (following is a toggle)",
  ),
  "Followed.": by("audience/follow", "following twice answers 409"),
  "No public Audience with that ID.": by(
    "audience/follow",
    "following a private Audience answered 200 instead of 404",
  ),
  "Public audience not found": WORDING,
  "The Audience to stop following.": LABEL,
  "The description documents only 200 and 401 for an unfollow: any value, a UUID or not, is answered 200, so nothing constrains it here.":
    by("audience/follow", "unfollowing an Audience one does not follow answers 404"),
  "Stops following an Audience.": unshown(
    "no answer shows who follows an Audience, so following and not following read the same",
  ),
  "Unfollowed.": by("audience/follow", "unfollowing an Audience one does not follow answers 404"),
  "The body of a follow or unfollow answer is not shown by the description.":
    unshown("the follow answer's body"),
};

const COLLABORATORS: Record<string, Entry> = {
  "Oldest first; the owner is excluded; only people who accepted an invitation.": by(
    "collaborators/managers",
    "collaborators listed newest first",
    "the owner listed among the collaborators",
  ),
  "Only the owner or a direct Audience admin may call this.": by("collaborators/managers", MANAGERS),
  "The collaborators.": LABEL,
  "Malformed audience ID.": by("ids/malformed-400", MALFORMED),
  "Only the owner or a direct Audience admin may manage collaborators.": by(
    "collaborators/managers",
    MANAGERS,
  ),
  "Only the owner or an admin can manage collaborators (COLLABORATORS_MANAGER_ONLY)": by(
    "collaborators/managers",
    MANAGERS,
  ),
  "Internal error; internal details are redacted.": SERVER_FAILURE,
  "Internal Server Error": SERVER_FAILURE,
  "Also revokes the person's invitations for this Audience; nobody is emailed.": internal(
    "invitations and email are not served by this interface",
  ),
  "Removed.": by("collaborators/removal-revokes", "a removed collaborator keeps access"),
  "Malformed ID, or the person is the owner.": by(
    ["ids/malformed-400", "collaborators/owner-not-removable"],
    "removing the owner answered 200 (no COLLABORATOR_IS_OWNER)",
  ),
  "Invalid user ID format": WORDING,
  "The owner cannot be removed (COLLABORATOR_IS_OWNER)": by(
    "collaborators/owner-not-removable",
    "removing the owner answered 200 (no COLLABORATOR_IS_OWNER)",
  ),
  "The Audience is not visible or the person is not a collaborator.": by(
    "collaborators/removal-revokes",
    "removing a collaborator twice answers 200 again",
  ),
  "Collaborator not found": WORDING,
  "Role granted by the accepted invitation.": unshown("invitations are not served by this interface"),
};

const MEMBERS: Record<string, Entry> = {
  "Owner only (others get 404).": by("members/add-rules", NOT_OWNER_ADDS),
  "Every Mind must be owned by the caller or public, otherwise nothing is added.": by(
    "members/add-rules",
    MIND_NOT_USABLE,
  ),
  "Already-present Minds are ignored, so the call is idempotent.": by(
    "members/add-rules",
    "adding a Mind that is already a member is refused",
  ),
  "The 1000-ID limit applies before deduplication.": by(
    "members/ids-limit",
    "one member ID past the limit accepted",
  ),
  "Capacity and authorization are rechecked in one transaction.": internal(
    "a transaction is the server's own; the caps it protects are judged by members/plan-cap",
  ),
  "In the background, added Minds are sorted into the Audience's ready Formations, default Formations are seeded if none exist, each added Mind is placed on the Audience's charts, the allocation audit is re-measured and members whose training failed are retrained.":
    by("members/counts-follow", "an added Mind is never sorted into the Audience's ready Formations"),
  "Exactly one of `mindId` or `mindIds`.": by("members/add-rules", "mindIds used although mindId is present"),
  "Added.": by("members/add-rules", "`added` counts new memberships instead of distinct IDs"),
  "Invalid JSON body": stated("input/invalid-400"),
  "mindId or mindIds is required": stated("members/add-rules"),
  "At least one Mind ID is required": stated("members/add-rules"),
  "At most 1000 Mind IDs are allowed": WORDING,
  "Invalid mind ID format": by("ids/messages", MESSAGES),
  "The Audience member cap would be exceeded.": by(
    "members/plan-cap",
    "the member that reaches the cap is refused",
    "PlanLimitError without `current`",
  ),
  "The Audience is missing or the caller is not its owner, or a Mind is not accessible.": by(
    "members/add-rules",
    NOT_OWNER_ADDS,
    MIND_NOT_USABLE,
  ),
  "One or more Minds not found or not accessible": stated(["members/add-rules", "audience/delete-cascade"]),
  "The body exceeds 64 KiB.": by("input/body-size-413", "a body over x-max-body-bytes answered 400, not 413"),
  "Request body too large": WORDING,
  "Exactly one of `mindId` or `mindIds`; when both are present `mindId` wins and `mindIds` is ignored.": by(
    "members/add-rules",
    "mindIds used although mindId is present",
  ),
  "Retired field names are rejected with a message naming the replacement.": unshown(
    "the retired field names are not shown, so no request can send one",
  ),
  "x-max-items-before-deduplication": by("members/ids-limit", "one member ID past the limit accepted"),
  "1 to 1000 IDs, counted before deduplication.": by(
    "members/ids-limit",
    "one member ID past the limit accepted",
  ),
  "The number of distinct IDs in the request, not the number of new memberships.": by(
    "members/add-rules",
    "`added` counts new memberships instead of distinct IDs",
  ),
  "Removes the Mind from the Audience and from every Formation subgroup of that Audience; the Mind itself is not deleted.":
    by(
      "members/remove-rules",
      "a removed member stays in Formation subgroups",
      "removing a member deletes the Mind itself",
    ),
  "Removing a non-member still returns 204.": by(
    "ids/unknown-404",
    "removing a Mind that is not a member answers 404",
  ),
  "In the background the allocation audit is re-measured and failed-training members are retrained.":
    internal(
      "the allocation audit is not served; retraining shows as progress, judged by progress/readiness",
    ),
  "Removed (or was not a member).": by("ids/unknown-404", "removing a Mind that is not a member answers 404"),
  "Malformed ID.": by("ids/malformed-400", "malformed ID on a write answered 404 instead of 400"),
  "Mind ID is required": by("ids/messages", MESSAGES),
};

export const AUDIENCE_SENTENCES: Record<string, Entry> = {
  ...SUMMARIES,
  ...READ,
  ...UPDATE,
  ...DELETE_DUPLICATE_FOLLOW,
  ...COLLABORATORS,
  ...MEMBERS,
};
