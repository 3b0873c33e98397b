/**
 * Hosted checkout (description, "Hosted checkout (ACP), paths under /api/acp"; Authentication rule 10).
 *
 * An agent creates an Agentic Commerce Protocol session for one catalogue price; the session always needs
 * buyer continuation (`requires_escalation`) at `continue_url`, a capability URL on the simulator served
 * by `checkout-page.ts`. There the buyer completes (the payment processor confirms: the session becomes
 * `completed` with an `order`, and the purchase is applied to the owner) or abandons (`canceled`). Open
 * sessions expire 24 hours of virtual time after creation.
 *
 * Simulator decisions (the description is silent):
 * - Idempotency keys are scoped per caller (user account) on create. A replay with the same key and the
 *   same body answers 201 with the original creation response, byte for byte; the same key with a
 *   different body is 409 with `data.code` `IDEMPOTENCY_CONFLICT`. Only successful creations are
 *   remembered: a request that failed may be retried with the same key.
 * - Checks run in this order: schema, idempotency, price known, currency matches the price's, legal
 *   acceptance, then name and `unit_amount` against the catalogue (409 `Price or purchase changed`).
 * - `metadata.quantity` multiplies the amount for every kind of price; tax and discounts are always 0.
 * - Cancel on a session that is not open, and complete on a canceled or expired one, answer 200 with the
 *   unchanged session and one ACP `messages` entry `{ type: error, code: invalid }` saying why: the
 *   contract documents no other status for them. Complete on an open session adds an `info` message
 *   pointing at `continue_url`.
 * - Refresh takes no body at all: any body bytes (even `{}`) are 400. Cancel and complete ignore a body,
 *   since the contract documents no 400 for them.
 * - Expiry is a job at `expires_at` and is also applied on every read, so an expired session never
 *   reads as open.
 */

import type { ValidationIssue } from "../../contract/validate.ts";
import { type ApiError, badRequest, conflict, notFound } from "../../core/errors.ts";
import type { RequestContext, ResourceModule } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import { type State, table } from "../../core/world/state.ts";
import { iso } from "../time.ts";
import { checkoutView } from "./dashboard.ts";
import type {
  AcpMessage,
  CheckoutSessionBody,
  CheckoutSessionRecord,
  CheckoutStatus,
  CreditAccount,
  Price,
} from "./records.ts";

export const CHECKOUT_TTL_MS = 24 * 60 * 60 * 1000;
export const JOB_EXPIRE = "checkout.expire";
export const CHECKOUT_PAGE_PREFIX = "/checkout/";

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const NOT_FOUND = "Checkout session not found";
const UNSUPPORTED = "Unsupported purchase";
const CONSENT_REQUIRED = "Legal acceptance is required for subscriptions";
const CHANGED = "Price or purchase changed";

interface CreateBody {
  line_items: [{ id: string; name?: string; unit_amount?: number }];
  currency: "usd" | "eur";
  capabilities: Record<string, unknown>;
  metadata?: {
    billingCountry?: string;
    quantity?: number;
    legalAcceptance?: unknown;
  };
}

export const checkoutSessions = (state: State) => table<CheckoutSessionRecord>(state, "checkoutSessions");
export const priceCatalogue = (state: State) => table<Price>(state, "prices");
export const creditAccounts = (state: State) => table<CreditAccount>(state, "credits");

export const continueUrl = (s: Pick<CheckoutSessionRecord, "origin" | "id">): string =>
  `${s.origin}${CHECKOUT_PAGE_PREFIX}${encodeURIComponent(s.id)}`;

/** Applies expiry on read: an open session past `expires_at` is `expired`. Returns the session. */
export function settle(s: CheckoutSessionRecord, now: number): CheckoutSessionRecord {
  if (s.status === "requires_escalation" && now >= s.expiresAt) s.status = "expired";
  return s;
}

/** The session as ACP shows it. */
export function sessionView(
  s: Omit<CheckoutSessionRecord, "created">,
  messages: AcpMessage[] = [],
): CheckoutSessionBody {
  const amount = s.price.unitAmount * s.quantity;
  const url = continueUrl(s);
  return {
    id: s.id,
    status: s.status,
    currency: s.price.currency,
    line_items: [
      {
        id: s.lineItemId,
        item: { id: s.price.id, quantity: s.quantity },
        name: s.price.name,
        unit_amount: s.price.unitAmount,
        base_amount: amount,
        discount: 0,
        subtotal: amount,
        tax: 0,
        total: amount,
      },
    ],
    totals: [
      { type: "subtotal", display_text: "Subtotal", amount },
      { type: "tax", display_text: "Tax", amount: 0 },
      { type: "total", display_text: "Total", amount },
    ],
    messages,
    links: [{ type: "terms_of_use", url: `${url}#terms`, title: "Terms of use" }],
    continue_url: url,
    capabilities: structuredClone(s.capabilities),
    metadata: structuredClone(s.metadata),
    created_at: iso(s.createdAt),
    expires_at: iso(s.expiresAt),
    order: s.status === "completed" ? { id: s.orderId, checkout_session_id: s.id, permalink_url: url } : null,
  };
}

/** JSON with object keys sorted, so that two equal bodies compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function legalAccepted(value: unknown): boolean {
  return isObject(value) && value.termsAccepted === true && value.withdrawalConsent === true;
}

// ------------------------------------------------------------------------------------- body messages

/** `/line_items/0/unit_amount` → `$.line_items[0].unit_amount` (ACP's `param` is a JSONPath). */
function jsonPath(pointer: string): string {
  let out = "$";
  for (const seg of pointer.split("/").slice(1)) out += /^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`;
  return out;
}

const dotted = (pointer: string): string => jsonPath(pointer).slice(2);

const unsupported = (param: string, reason: string): ApiError => badRequest(UNSUPPORTED, { param, reason });

const ALLOWED_FIELDS = "line_items, currency, capabilities and metadata";

/** Field-level messages for a create body the schema rejects; null when only the consent is at fault. */
export function invalidCreateBody(issues: ValidationIssue[]): ApiError | null {
  const at = (i: ValidationIssue): string => {
    const missing = i.code === "required" ? (i.params.missingProperty as string | undefined) : undefined;
    return missing === undefined ? i.path : `${i.path}/${missing}`;
  };
  // Consent problems are judged by the handler, which knows whether the price is a subscription.
  const rest = issues.filter((i) => !at(i).startsWith("/metadata/legalAcceptance"));
  const first = rest[0];
  if (!first) return null;
  if (rest.some((i) => i.path === "" && i.code === "type")) {
    return badRequest("Request body must be a JSON object");
  }
  const extra = rest.find((i) => i.code === "additionalProperties");
  if (extra) {
    const name = String(extra.params.additionalProperty);
    return badRequest(`Unknown field ${JSON.stringify(name)}: the body allows ${ALLOWED_FIELDS}`, {
      param: `$.${name}`,
    });
  }
  const missing = rest.find((i) => i.code === "required" && i.path === "");
  if (missing) {
    const name = String(missing.params.missingProperty);
    return badRequest(`${name} is required`, { param: `$.${name}` });
  }
  // The remaining issues, most telling first: the purchase itself, then the other fields.
  const byPath = (prefix: string) => rest.find((i) => at(i) === prefix || at(i).startsWith(`${prefix}/`));
  const items = byPath("/line_items");
  if (items) {
    if (items.path === "/line_items" && items.code === "type") {
      return badRequest("line_items must be an array with exactly one item", { param: "$.line_items" });
    }
    if (items.path === "/line_items") {
      return unsupported("$.line_items", "A session sells exactly one price: send exactly one line item");
    }
    const p = at(items);
    if (/^\/line_items\/\d+$/.test(p) && items.code === "type") {
      return badRequest(`${dotted(p)} must be an object`, { param: jsonPath(p) });
    }
    if (p.endsWith("/id")) {
      return unsupported(jsonPath(p), `${dotted(p)} must be a catalogue price ID (price_…)`);
    }
    if (p.endsWith("/name")) return badRequest(`${dotted(p)} must be a string`, { param: jsonPath(p) });
    if (p.endsWith("/unit_amount")) {
      return badRequest(`${dotted(p)} must be an integer of at least 0 (minor units)`, {
        param: jsonPath(p),
      });
    }
  }
  if (byPath("/currency")) return badRequest("currency must be usd or eur", { param: "$.currency" });
  if (byPath("/capabilities"))
    return badRequest("capabilities must be an object", { param: "$.capabilities" });
  if (rest.some((i) => i.path === "/metadata")) {
    return badRequest("metadata must be an object", { param: "$.metadata" });
  }
  if (byPath("/metadata/billingCountry")) {
    return badRequest("metadata.billingCountry must be a string of at most 10 characters", {
      param: "$.metadata.billingCountry",
    });
  }
  if (byPath("/metadata/quantity")) {
    return badRequest("metadata.quantity must be an integer of at least 1", { param: "$.metadata.quantity" });
  }
  return badRequest("Invalid request body", { param: jsonPath(at(first)) });
}

// ---------------------------------------------------------------------------------------- handlers

const idempotencySlot = (callerId: string, key: string): string => `checkout:${callerId}\n${key}`;

function createSession(ctx: RequestContext) {
  const { state, caller } = ctx;
  const body = ctx.body as CreateBody;
  const key = ctx.queryValues["Idempotency-Key"] as string;
  const fingerprint = canonical(body);
  const slot = idempotencySlot(caller.id, key);
  const earlier = state.idempotency.get(slot);
  const replay = earlier ? checkoutSessions(state).get(earlier.resultId) : undefined;
  if (replay) {
    if (replay.fingerprint !== fingerprint) {
      throw conflict("Idempotency-Key was already used with a different request", {
        code: "IDEMPOTENCY_CONFLICT",
      });
    }
    return { status: 201, body: replay.created };
  }

  const line = body.line_items[0];
  const price = priceCatalogue(state).get(line.id);
  if (!price) {
    throw unsupported("$.line_items[0].id", `No price ${line.id} in the catalogue`);
  }
  if (price.currency !== body.currency) {
    throw unsupported("$.currency", `Price ${price.id} is sold in ${price.currency}`);
  }
  const legal = body.metadata?.legalAcceptance;
  if (price.kind === "subscription" && !legalAccepted(legal)) {
    throw badRequest(CONSENT_REQUIRED, { param: "$.metadata.legalAcceptance" });
  }
  if (legal !== undefined && !legalAccepted(legal)) {
    throw badRequest("metadata.legalAcceptance needs termsAccepted and withdrawalConsent, both true", {
      param: "$.metadata.legalAcceptance",
    });
  }
  const quoted = { id: price.id, name: price.name, unit_amount: price.unitAmount, currency: price.currency };
  if (line.unit_amount !== undefined && line.unit_amount !== price.unitAmount) {
    throw conflict(CHANGED, { param: "$.line_items[0].unit_amount", price: quoted });
  }
  if (line.name !== undefined && line.name !== price.name) {
    throw conflict(CHANGED, { param: "$.line_items[0].name", price: quoted });
  }

  const now = ctx.clock.now();
  const fields: Omit<CheckoutSessionRecord, "created"> = {
    id: `cs_${ctx.rng.chars(24, ID_ALPHABET)}`,
    ownerId: caller.id,
    status: "requires_escalation",
    price: { ...price },
    quantity: body.metadata?.quantity ?? 1,
    lineItemId: `li_${ctx.rng.chars(24, ID_ALPHABET)}`,
    capabilities: structuredClone(body.capabilities),
    metadata: structuredClone(body.metadata ?? {}),
    origin: `${ctx.url.origin}${ctx.pageBase}`,
    createdAt: now,
    expiresAt: now + CHECKOUT_TTL_MS,
    completedAt: null,
    canceledAt: null,
    orderId: `ord_${ctx.rng.chars(24, ID_ALPHABET)}`,
    idempotencyKey: key,
    fingerprint,
  };
  const record: CheckoutSessionRecord = { ...fields, created: sessionView(fields) };
  checkoutSessions(state).set(record.id, record);
  state.idempotency.set(slot, {
    scope: `checkout:${caller.id}`,
    key,
    resultId: record.id,
    createdAt: now,
  });
  ctx.schedule(CHECKOUT_TTL_MS, JOB_EXPIRE, { sessionId: record.id });
  return { status: 201, body: record.created };
}

/** The caller's session named by the path, settled; 404 for unknown sessions and other callers'. */
function owned(ctx: RequestContext): CheckoutSessionRecord {
  const s = checkoutSessions(ctx.state).get(ctx.params.id ?? "");
  if (!s || s.ownerId !== ctx.caller.id) throw notFound(NOT_FOUND);
  return settle(s, ctx.clock.now());
}

const errorMessage = (content: string): AcpMessage => ({
  type: "error",
  code: "invalid",
  content_type: "plain",
  content,
});

function dropExpiryJob(services: Pick<Services, "clock">, id: string): void {
  services.clock.cancel(
    (j) => j.kind === JOB_EXPIRE && (j.payload as { sessionId?: string } | null)?.sessionId === id,
  );
}

/** Why the API's cancel leaves a session that is no longer open as it is. */
const CANNOT_CANCEL: Record<Exclude<CheckoutStatus, "requires_escalation">, string> = {
  completed: "Checkout session is completed and cannot be canceled",
  canceled: "Checkout session is already canceled",
  expired: "Checkout session has expired and cannot be canceled",
};

function cancelSession(ctx: RequestContext) {
  const s = owned(ctx);
  if (s.status !== "requires_escalation") {
    return { status: 200, body: sessionView(s, [errorMessage(CANNOT_CANCEL[s.status])]) };
  }
  s.status = "canceled";
  s.canceledAt = ctx.clock.now();
  dropExpiryJob(ctx, s.id);
  return { status: 200, body: sessionView(s) };
}

function completeSession(ctx: RequestContext) {
  const s = owned(ctx);
  if (s.status === "requires_escalation") {
    const info: AcpMessage = {
      type: "info",
      content_type: "plain",
      content: "The buyer completes checkout at continue_url; payment is collected by the processor there",
    };
    return { status: 200, body: sessionView(s, [info]) };
  }
  if (s.status === "canceled" || s.status === "expired") {
    const why =
      s.status === "canceled"
        ? "Checkout session was canceled and cannot be completed"
        : "Checkout session has expired and cannot be completed";
    return { status: 200, body: sessionView(s, [errorMessage(why)]) };
  }
  return { status: 200, body: sessionView(s) };
}

// ----------------------------------------------------------------------- the buyer (checkout page)

export type BuyerOutcome =
  | "completed"
  | "canceled"
  | { refused: Exclude<CheckoutStatus, "requires_escalation"> };

/** Finds a session by ID for the buyer's page (no caller: the URL is the capability), settled. */
export function sessionForBuyer(
  services: Pick<Services, "state" | "clock">,
  id: string,
): CheckoutSessionRecord | undefined {
  const s = checkoutSessions(services.state).get(id);
  return s ? settle(s, services.clock.now()) : undefined;
}

/**
 * The buyer finished checkout and the payment processor confirmed: the session is `completed` and the
 * purchase applies to the session's owner (a subscription sets the plan; credits are added).
 */
export function completeByBuyer(
  services: Pick<Services, "state" | "clock">,
  s: CheckoutSessionRecord,
): BuyerOutcome {
  const now = closeOpen(services, s, "completed");
  if (typeof now !== "number") return now;
  const owner = services.state.users.get(s.ownerId);
  if (s.price.kind === "subscription" && s.price.plan !== null && owner) {
    owner.plan = s.price.plan;
    owner.subscriptionActive = true;
  } else if (s.price.kind === "credits") {
    const accounts = creditAccounts(services.state);
    const account = accounts.get(s.ownerId) ?? { userId: s.ownerId, packs: 0, purchases: [] };
    account.packs += s.quantity;
    account.purchases.push({
      sessionId: s.id,
      orderId: s.orderId,
      priceId: s.price.id,
      quantity: s.quantity,
      at: now,
    });
    accounts.set(s.ownerId, account);
  }
  return "completed";
}

/** The buyer abandoned checkout at `continue_url`: an open session is canceled. */
export function abandonByBuyer(
  services: Pick<Services, "state" | "clock">,
  s: CheckoutSessionRecord,
): BuyerOutcome {
  const closed = closeOpen(services, s, "canceled");
  return typeof closed === "number" ? "canceled" : closed;
}

/** Closes a session that is still open (after expiry is settled): the time it closed, or why it could not. */
function closeOpen(
  services: Pick<Services, "state" | "clock">,
  s: CheckoutSessionRecord,
  to: "completed" | "canceled",
): number | { refused: Exclude<CheckoutStatus, "requires_escalation"> } {
  const now = services.clock.now();
  settle(s, now);
  if (s.status !== "requires_escalation") return { refused: s.status };
  s.status = to;
  if (to === "completed") s.completedAt = now;
  else s.canceledAt = now;
  dropExpiryJob(services, s.id);
  return now;
}

// ------------------------------------------------------------------------------------------- module

export const checkout: ResourceModule = {
  view: checkoutView,
  routes: {
    createCheckoutSession: {
      invalidBody: (issues) => invalidCreateBody(issues),
      handler: createSession,
    },
    getCheckoutSession: {
      authorize: owned,
      handler: (ctx) => ({ status: 200, body: sessionView(owned(ctx)) }),
    },
    refreshCheckoutSession: {
      // The session is found first: a caller who may not see it learns nothing from the body check.
      authorize: owned,
      handler: (ctx) => {
        if (ctx.hasBody) throw badRequest("Hosted checkout sessions are changed through continue_url");
        return { status: 200, body: sessionView(owned(ctx)) };
      },
    },
    cancelCheckoutSession: { authorize: owned, handler: cancelSession },
    completeCheckoutSession: { authorize: owned, handler: completeSession },
  },
  jobs: {
    [JOB_EXPIRE]: (services, payload) => {
      const id = (payload as { sessionId?: string } | null)?.sessionId;
      const s = id === undefined ? undefined : checkoutSessions(services.state).get(id);
      if (s) settle(s, services.clock.now());
    },
  },
};
