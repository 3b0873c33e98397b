/** The sentences of identity and API keys (`/auth/me`, `/api-keys`, the key schemas). */
import { by, type Entry, LABEL, stated, unreachable } from "./entry.ts";

const LEAK = "the secret `key` leaked in API key listings";
const NO_SUB = "API keys listed for an account without an active subscription";

export const IDENTITY: Record<string, Entry> = {
  "Verify the API key": LABEL,
  "Returns the user ID of the key's owner.": by("keys/me", "GET /auth/me names another user"),
  "The key is valid.": LABEL,
  "User ID of the key owner.": by("keys/me", "GET /auth/me names another user"),

  "List API keys": LABEL,
  "The account's API keys ordered by `createdAt` descending.": by(
    "keys/listing-order",
    "API key listing oldest first",
  ),
  "The keys, newest first.": by("keys/listing-order", "API key listing oldest first"),
  "Secret values are never returned.": by("keys/secret-once", LEAK),
  "Requires an active Premium or Team subscription.": by("keys/subscription-sso", NO_SUB),
  "No active subscription.": by("keys/subscription-sso", NO_SUB),
  Forbidden: stated("keys/subscription-sso"),

  "Create an API key": LABEL,
  "Creates a key; the raw `key` is returned once only, in this response.": by(
    "keys/secret-once",
    "the creation response of an API key has no secret",
    LEAK,
  ),
  "No cap on the number of keys is enforced.": unreachable(
    "it states the absence of a cap: a run sees only the keys it makes, never that no number is refused",
  ),
  "Requires an active Premium or Team subscription; SSO-linked accounts cannot create keys.": by(
    "keys/subscription-sso",
    NO_SUB,
    "an SSO-linked account can create an API key",
  ),
  "No active subscription, or an SSO-linked account.": by(
    "keys/subscription-sso",
    NO_SUB,
    "an SSO-linked account can create an API key",
  ),
  "API keys are disabled for this SSO-linked account": stated("keys/subscription-sso"),
  "Optional; an empty body is accepted.": by(
    "input/optional-body",
    "a request without its optional body refused",
  ),
  "The key, with its secret shown once.": by(
    "keys/secret-once",
    "the creation response of an API key has no secret",
  ),
  "Invalid name.": by("keys/name-limit", "API key name of 101 characters accepted"),
  "name must be a string": stated("keys/name-limit"),
  "name must be 100 characters or fewer": stated("keys/name-limit"),

  "Delete an API key": LABEL,
  "Deleting the key used for the request is allowed; a deleted key stops authenticating immediately.": by(
    "keys/delete-immediate",
    "self-deleted key keeps working",
    "a deleted key keeps authenticating",
  ),
  "Missing or malformed key ID.": by(
    ["ids/malformed-400", "ids/messages"],
    "malformed ID on a write answered 404 instead of 400",
    "a malformed path ID answered with another message than x-error-messages names",
  ),
  "API key ID is required": by(
    "ids/messages",
    "a malformed path ID answered with another message than x-error-messages names",
  ),
  "Invalid API key ID format": by(
    "ids/messages",
    "a malformed path ID answered with another message than x-error-messages names",
  ),
  "No such key on the account.": by(
    "keys/own-account-only",
    "a non-owner can delete an API key of another account (404 replaced by 204)",
  ),
  "API key not found": stated(["keys/own-account-only", "keys/subscription-sso"]),

  "cuid: `c` followed by 24 lowercase alphanumerics.": by(
    "contract/responses",
    "an API key ID that is not a cuid",
  ),
  "Label, at most 100 characters.": by("keys/name-limit", "API key name of 101 characters accepted"),
  "Present in listings; null while the key has never been used.": by(
    ["keys/last-used", "reads/safe"],
    "a key's use never shows in the listing (lastUsedAt stays null)",
    "listing the keys marks every key used",
  ),
  "An API key without its secret.": by("keys/secret-once", LEAK),
  "The raw secret: the fixed prefix `service_` followed by an opaque string.": by(
    "keys/secret-once",
    "the creation response of an API key has no secret",
  ),
  "Returned only in the creation response.": by("keys/secret-once", LEAK),
  "x-max-trimmed-length": by(
    ["keys/name-limit", "audience/update-rules"],
    "API key name of 101 characters accepted",
  ),
  "At most 100 characters after trimming.": by("keys/name-limit", "API key name of 101 characters accepted"),
  "Empty, null or missing stores null.": by(
    "keys/name-limit",
    "a blank API key name stored as an empty string, not null",
  ),
};
