/**
 * Hosted checkout, case by case: a session made by every account; the create body's rules (one line
 * item, a known price, the catalogue's amount and name or 409, both consents for a subscription, no
 * property the schema does not name); `Idempotency-Key` and `API-Version` at and past their rules; a
 * session read, refreshed, cancelled and completed by its owner and by another account.
 */
import type { Role } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";
import {
  type Answer,
  type Case,
  type CaseWorld,
  fixedRequest,
  is,
  type Later,
  ok,
  PRESENT,
  refused,
} from "./case.ts";
import { EVERYONE } from "./cast.ts";
import { refusedStep } from "./given.ts";

/** A fresh idempotency key of `n` characters of the ACP pattern. */
function key(n = 24): string {
  return `case${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`
    .replace(/[^a-zA-Z0-9_-]/g, "")
    .padEnd(n, "k")
    .slice(0, n);
}

const credits = (w: CaseWorld) => w.price("credits");
const body = (w: CaseWorld) => ({
  line_items: [{ id: credits(w).id }],
  currency: credits(w).currency,
  capabilities: {},
});
const consent = { termsAccepted: true, withdrawalConsent: true };

function create(
  role: Role,
  what: string,
  json: (w: CaseWorld) => unknown,
  expect: Answer[],
  headers: () => Record<string, string> = () => ({ "idempotency-key": key() }),
): Case {
  return {
    id: `createCheckoutSession ${role}: ${what}`,
    rule: "checkout/create",
    op: "createCheckoutSession",
    as: role,
    request: (w) => ({ json: json(w), headers: headers() }),
    expect,
  };
}

const MADE = ok(201, { id: PRESENT, continue_url: PRESENT });

const CREATES: Case[] = [
  ...EVERYONE.map((r) => create(r, "a session of credits", body, [MADE])),
  create("owner", "API-Version 2026-04-17", body, [MADE], () => ({
    "idempotency-key": key(),
    "api-version": "2026-04-17",
  })),
  create("owner", "another API-Version", body, [refused(400)], () => ({
    "idempotency-key": key(),
    "api-version": "2025-01-01",
  })),
  create("owner", "no Idempotency-Key", body, [refused(400)], () => ({})),
  create("owner", "an Idempotency-Key of 128 characters", body, [MADE], () => ({
    "idempotency-key": key(128),
  })),
  create("owner", "an Idempotency-Key of 129 characters", body, [refused(400)], () => ({
    "idempotency-key": key(129),
  })),
  create("owner", "an Idempotency-Key with a character outside the pattern", body, [refused(400)], () => ({
    "idempotency-key": `${key(20)}.x`,
  })),
  create(
    "owner",
    "a price the catalogue does not have",
    (w) => ({ ...body(w), line_items: [{ id: "price_caseUnknown0" }] }),
    [refused(400)],
  ),
  create(
    "owner",
    "two line items",
    (w) => ({ ...body(w), line_items: [{ id: credits(w).id }, { id: credits(w).id }] }),
    [refused(400)],
  ),
  create("owner", "no line items", (w) => ({ ...body(w), line_items: [] }), [refused(400)]),
  create("owner", "a currency it does not sell in", (w) => ({ ...body(w), currency: "gbp" }), [refused(400)]),
  create("owner", "a property the body does not have", (w) => ({ ...body(w), coupon: "FREE" }), [
    refused(400),
  ]),
  create(
    "owner",
    "no capabilities",
    (w) => ({ line_items: [{ id: credits(w).id }], currency: credits(w).currency }),
    [refused(400)],
  ),
  create(
    "owner",
    "the catalogue's price at another amount: the purchase changed",
    (w) => ({
      ...body(w),
      line_items: [{ id: credits(w).id, unit_amount: credits(w).unitAmount + 1 }],
    }),
    [refused(409)],
  ),
  create(
    "owner",
    "the catalogue's price under another name: the purchase changed",
    (w) => ({
      ...body(w),
      line_items: [{ id: credits(w).id, name: `${credits(w).name} (changed)` }],
    }),
    [refused(409)],
  ),
  create(
    "owner",
    "the catalogue's price as it is listed",
    (w) => ({
      ...body(w),
      line_items: [{ id: credits(w).id, name: credits(w).name, unit_amount: credits(w).unitAmount }],
    }),
    [MADE],
  ),
  create("owner", "a subscription without legal acceptance", (w) => subscription(w), [refused(400)]),
  create("owner", "a subscription with both consents", (w) => subscription(w, consent), [MADE]),
  create(
    "owner",
    "a subscription without the withdrawal consent",
    (w) => subscription(w, { ...consent, withdrawalConsent: false }),
    [refused(400)],
  ),
  create(
    "owner",
    "a subscription without the terms",
    (w) => subscription(w, { ...consent, termsAccepted: false }),
    [refused(400)],
  ),
  create("owner", "quantity 0", (w) => ({ ...body(w), metadata: { quantity: 0 } }), [refused(400)]),
  create(
    "owner",
    "a billing country of 11 characters",
    (w) => ({ ...body(w), metadata: { billingCountry: "C".repeat(11) } }),
    [refused(400)],
  ),
  create(
    "owner",
    "a billing country of 10 characters",
    (w) => ({ ...body(w), metadata: { billingCountry: "C".repeat(10) } }),
    [MADE],
  ),
];

function subscription(w: CaseWorld, legalAcceptance?: object): object {
  const p = w.price("premiumMonthly");
  return {
    line_items: [{ id: p.id }],
    currency: p.currency,
    capabilities: {},
    ...(legalAcceptance ? { metadata: { legalAcceptance } } : {}),
  };
}

/** A session `owner` made, cancelled after the case. */
async function sessionOf(ctx: CheckContext, w: CaseWorld, owner: Role, later: Later) {
  const ex = await ctx.call({
    op: "createCheckoutSession",
    as: ctx.as(owner),
    json: body(w),
    headers: { "idempotency-key": key() },
  });
  if (ex.status !== 201) return refusedStep(ex, 201, `${owner} creating a checkout session`);
  const id = ex.body?.id as string;
  later(() => ctx.call({ op: "cancelCheckoutSession", params: { id }, as: ctx.as(owner) }));
  return { made: { id } };
}

function onSession(op: string, owner: Role, role: Role, expect: Answer[], json?: unknown, what = ""): Case {
  const own = owner === role;
  return {
    id: `${op} ${role} on a session of ${own ? "its own" : owner}${what}`,
    rule: own ? "checkout/lifecycle" : "checkout/own-sessions",
    op,
    as: role,
    given: (ctx, w, later) => sessionOf(ctx, w, owner, later),
    request: (w) => ({ params: { id: w.made.id as string }, ...(json !== undefined ? { json } : {}) }),
    expect: own ? expect : [refused(404)],
  };
}

const SESSIONS: Case[] = [
  ...(["owner", "teammate", "outsider"] as const).flatMap((role) => [
    onSession("getCheckoutSession", "owner", role, [ok(200, { id: PRESENT })]),
    onSession("cancelCheckoutSession", "owner", role, [ok(200, { id: PRESENT })]),
    onSession("completeCheckoutSession", "owner", role, [
      ok(200, { status: is("requires_escalation"), continue_url: PRESENT }),
    ]),
    onSession("refreshCheckoutSession", "owner", role, [ok(200, { id: PRESENT })]),
  ]),
  onSession(
    "refreshCheckoutSession",
    "owner",
    "owner",
    [refused(400)],
    { line_items: [] },
    ": a body that is not empty",
  ),
  fixedRequest(
    "getCheckoutSession",
    "owner",
    "checkout/own-sessions",
    "an ID that names no session",
    {
      params: { id: "cs_case_nobody" },
    },
    [refused(404)],
  ),
  {
    id: "createCheckoutSession without a key",
    rule: "auth/401",
    op: "createCheckoutSession",
    as: null,
    request: (w) => ({ json: body(w), headers: { "idempotency-key": key() } }),
    expect: [refused(401)],
  },
];

export const CHECKOUT_CASES: Case[] = [...CREATES, ...SESSIONS];
