/** The sentences of hosted checkout (ACP) and of the document's own endpoint. */
import { by, type Entry, LABEL, permits, unshown, WORDING } from "./entry.ts";

const CONTINUE = "a created session has no continue_url";
const CONSENT = "a subscription sold without legal acceptance";
const ONE_PRICE = "a session with two line items accepted";
const ESCALATION = "complete answers `completed` at once";
const REFRESH_BODY = "a refresh with a body is taken";

export const CHECKOUT_SENTENCES: Record<string, Entry> = {
  "Hosted checkout (ACP)": LABEL,
  "Create a checkout session": LABEL,
  "Creates an ACP session that requires buyer continuation at `continue_url`.": by(
    "checkout/create",
    CONTINUE,
  ),
  "A session requiring buyer continuation.": by("checkout/create", CONTINUE),
  "One subscription or response-credit price per session; subscription prices require explicit `metadata.legalAcceptance`.":
    by("checkout/create", ONE_PRICE, CONSENT),
  "One subscription or response-credit price per session.": by("checkout/create", ONE_PRICE),
  "Subscription prices require `metadata.legalAcceptance`.": by("checkout/create", CONSENT),
  "Both must be true.": by("checkout/create", "legal acceptance without withdrawal consent accepted"),
  "A replay with the same `Idempotency-Key` returns the same session.": by(
    "checkout/idempotency",
    "a replay with the same Idempotency-Key makes a second session",
  ),
  "At most 128 characters of `[a-zA-Z0-9_-]`.": by(
    "checkout/create",
    "an Idempotency-Key of 129 characters accepted",
  ),
  "The ACP version.": by("checkout/create", "ACP API-Version ignored"),
  "The purchase.": LABEL,
  "Unsupported purchase, missing consent, or invalid input.": by(
    "checkout/create",
    CONSENT,
    "ACP create accepts extra top-level properties",
  ),
  "Unsupported purchase": WORDING,
  "Legal acceptance is required for subscriptions": by("checkout/create", CONSENT),
  "The price or purchase changed.": by("checkout/create", "a changed unit_amount accepted (201, not 409)"),
  "Price or purchase changed": WORDING,
  "Read a checkout session": LABEL,
  "An owned session.": by(
    "checkout/own-sessions",
    "another account may cancel a session",
    "an idempotency key replays another account's session",
  ),
  "The session.": LABEL,
  "Refresh a checkout session": LABEL,
  "Takes an empty body and returns the refreshed, immutable hosted session; billing details and discounts are changed through `continue_url`.":
    by("checkout/lifecycle", "a refresh re-prices the session", REFRESH_BODY),
  "The refreshed session.": LABEL,
  "A non-empty body: hosted sessions are changed through `continue_url`.": by(
    "checkout/lifecycle",
    REFRESH_BODY,
  ),
  "Hosted checkout sessions are changed through continue_url": WORDING,
  "Cancel a checkout session": LABEL,
  "Cancels an owned, open session.": by(
    ["checkout/lifecycle", "checkout/own-sessions"],
    "cancelling a checkout session leaves it open",
    "another account may cancel a session",
  ),
  "Canceled.": LABEL,
  "Complete a checkout session": LABEL,
  "Takes an empty body.": unshown("what a body sent to complete is answered is not shown"),
  "Returns status `requires_escalation` with `continue_url` until the payment processor confirms buyer checkout; payment credentials are collected by the processor.":
    by("checkout/lifecycle", ESCALATION),
  "The session: `requires_escalation` until the buyer completes checkout at `continue_url`.": by(
    "checkout/lifecycle",
    ESCALATION,
  ),
  "An ACP checkout session.": LABEL,
  "The buyer completes checkout at `continue_url`; payment credentials are collected by the processor.": by(
    "checkout/lifecycle",
    ESCALATION,
  ),
  "Fields beyond those the description names follow the Agentic Commerce Protocol and are not guaranteed by this description.":
    permits("fields beyond those named follow ACP and are not guaranteed here"),

  "Service root": LABEL,
  "This document": LABEL,
  "The OpenAPI 3.1.0 description of the interface.": by("contract/responses", "/_openapi.json is not served"),
  "The document.": LABEL,
};
