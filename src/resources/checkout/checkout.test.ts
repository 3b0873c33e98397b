import { beforeEach, describe, expect, it } from "vitest";
import { type CallOptions, type Harness, harness } from "../../../testing/harness.ts";
import { escapeHtml } from "../../core/control/html.ts";
import { table } from "../../core/world/state.ts";
import { PRICE_CATALOGUE } from "../../scenarios/catalogue.ts";
import { CHECKOUT_TTL_MS, creditAccounts } from "./checkout.ts";
import { handleCheckoutPage, parseCheckoutPath } from "./checkout-page.ts";
import type { Price } from "./records.ts";

const BASE = "/api/acp/checkout_sessions";
const LEGAL = { termsAccepted: true, withdrawalConsent: true };

let h: Harness;
let keySeq = 0;
beforeEach(async () => {
  h = await harness();
});

const nextKey = () => `key-${++keySeq}`;

function purchase(price: keyof typeof PRICE_CATALOGUE, extra: Record<string, unknown> = {}) {
  const p = PRICE_CATALOGUE[price];
  return {
    line_items: [{ id: p.id, name: p.name, unit_amount: p.unitAmount }],
    currency: p.currency,
    capabilities: {},
    ...(p.kind === "subscription" ? { metadata: { billingCountry: "DE", legalAcceptance: LEGAL } } : {}),
    ...extra,
  };
}

function create(body: unknown, opts: CallOptions & { key?: string | null } = {}) {
  const { key = nextKey(), ...rest } = opts;
  const headers = { ...(key === null ? {} : { "idempotency-key": key }), ...(rest.headers ?? {}) };
  return h.call("POST", BASE, { body, ...rest, headers });
}

async function open(price: keyof typeof PRICE_CATALOGUE = "premiumMonthly", as = "owner") {
  const r = await create(purchase(price), { as });
  expect(r.status).toBe(201);
  return r.body as { id: string; continue_url: string; [k: string]: any };
}

/** The buyer's browser: the page function called with the simulator's state and clock. */
function page(method: string, path: string) {
  const url = new URL(`http://sim.test${path}`);
  const services = { state: h.sim.state, clock: h.sim.clock, pageBase: "" };
  return handleCheckoutPage(new Request(url, { method }), url, services).then((a) =>
    a === null ? null : a.toResponse(),
  );
}

function expectError(r: { status: number; body: any }, status: number, message: string, url = BASE) {
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ statusCode: status, statusMessage: message, message, url, error: true });
}

describe("POST /api/acp/checkout_sessions", () => {
  it.each(
    Object.keys(PRICE_CATALOGUE) as (keyof typeof PRICE_CATALOGUE)[],
  )("creates a session requiring buyer continuation for %s", async (handle) => {
    const price = PRICE_CATALOGUE[handle];
    const r = await create(purchase(handle));
    expect(r.status).toBe(201);
    const s = r.body;
    expect(s.id).toMatch(/^cs_[A-Za-z0-9]{24}$/);
    expect(s.status).toBe("requires_escalation");
    expect(s.currency).toBe(price.currency);
    expect(s.continue_url).toBe(`http://sim.test/checkout/${s.id}`);
    expect(s.line_items).toEqual([
      {
        id: expect.stringMatching(/^li_[A-Za-z0-9]{24}$/),
        item: { id: price.id, quantity: 1 },
        name: price.name,
        unit_amount: price.unitAmount,
        base_amount: price.unitAmount,
        discount: 0,
        subtotal: price.unitAmount,
        tax: 0,
        total: price.unitAmount,
      },
    ]);
    expect(s.totals).toEqual([
      { type: "subtotal", display_text: "Subtotal", amount: price.unitAmount },
      { type: "tax", display_text: "Tax", amount: 0 },
      { type: "total", display_text: "Total", amount: price.unitAmount },
    ]);
    expect(s.messages).toEqual([]);
    expect(s.links).toEqual([
      { type: "terms_of_use", url: `${s.continue_url}#terms`, title: "Terms of use" },
    ]);
    expect(s.capabilities).toEqual({});
    expect(s.order).toBeNull();
    expect(s.created_at).toBe(h.sim.clock.nowIso());
    expect(Date.parse(s.expires_at) - Date.parse(s.created_at)).toBe(CHECKOUT_TTL_MS);
    // ACP is not v1: no rate-limit headers.
    expect(r.headers.get("ratelimit-limit")).toBeNull();
  });

  it("accepts a credits purchase without legal acceptance and multiplies by metadata.quantity", async () => {
    const r = await create(
      purchase("credits", { metadata: { quantity: 3 }, capabilities: { payment: "x" } }),
    );
    expect(r.status).toBe(201);
    const unit = PRICE_CATALOGUE.credits.unitAmount;
    expect(r.body.line_items[0]).toMatchObject({
      item: { quantity: 3 },
      base_amount: 3 * unit,
      total: 3 * unit,
    });
    expect(r.body.totals.at(-1)).toEqual({ type: "total", display_text: "Total", amount: 3 * unit });
    expect(r.body.metadata).toEqual({ quantity: 3 });
    expect(r.body.capabilities).toEqual({ payment: "x" });
  });

  it("accepts a line item naming only the price, and the API-Version 2026-04-17", async () => {
    const body = { line_items: [{ id: "price_credits" }], currency: "usd", capabilities: {} };
    const r = await create(body, { headers: { "api-version": "2026-04-17" } });
    expect(r.status).toBe(201);
  });

  it.each([
    ["no metadata", {}],
    ["no legalAcceptance", { metadata: { billingCountry: "DE" } }],
    [
      "termsAccepted false",
      { metadata: { legalAcceptance: { termsAccepted: false, withdrawalConsent: true } } },
    ],
    ["withdrawalConsent missing", { metadata: { legalAcceptance: { termsAccepted: true } } }],
    ["legalAcceptance not an object", { metadata: { legalAcceptance: "yes" } }],
  ])("refuses a subscription with %s", async (_n, extra) => {
    const body = { ...purchase("premiumMonthly"), metadata: undefined, ...extra };
    const r = await create(body);
    expectError(r, 400, "Legal acceptance is required for subscriptions");
  });

  it("refuses a credits purchase whose legal acceptance is not both true", async () => {
    const r = await create(
      purchase("credits", {
        metadata: { legalAcceptance: { termsAccepted: true, withdrawalConsent: false } },
      }),
    );
    expectError(r, 400, "metadata.legalAcceptance needs termsAccepted and withdrawalConsent, both true");
  });

  describe("headers", () => {
    it("requires Idempotency-Key", async () => {
      expectError(
        await create(purchase("credits"), { key: null }),
        400,
        "Idempotency-Key header is required",
      );
    });

    it.each([
      ["129 characters", "k".repeat(129)],
      ["a space", "my key"],
      ["a dot", "order.1"],
      ["empty", ""],
    ])("rejects an Idempotency-Key with %s", async (_n, key) => {
      expectError(await create(purchase("credits"), { key }), 400, "Invalid Idempotency-Key header");
    });

    it("accepts a 128-character Idempotency-Key of [a-zA-Z0-9_-]", async () => {
      const r = await create(purchase("credits"), { key: `${"a".repeat(126)}_-` });
      expect(r.status).toBe(201);
    });

    it.each(["2025-09-29", "2026-04-18", ""])("rejects API-Version %j", async (v) => {
      const r = await create(purchase("credits"), { headers: { "api-version": v } });
      expectError(r, 400, "Invalid API-Version header");
    });
  });

  describe("body", () => {
    const credits = purchase("credits");
    it.each([
      [
        "an extra top-level field",
        { ...credits, buyer: {} },
        'Unknown field "buyer": the body allows line_items, currency, capabilities and metadata',
      ],
      [
        "two line items",
        { ...credits, line_items: [{ id: "price_credits" }, { id: "price_premiumMonthly" }] },
        "Unsupported purchase",
      ],
      ["no line items", { ...credits, line_items: [] }, "Unsupported purchase"],
      [
        "a price ID of the wrong form",
        { ...credits, line_items: [{ id: "prod_credits" }] },
        "Unsupported purchase",
      ],
      ["a line item without an ID", { ...credits, line_items: [{ name: "x" }] }, "Unsupported purchase"],
      [
        "an unknown price",
        { ...credits, line_items: [{ id: "price_doesNotExist" }] },
        "Unsupported purchase",
      ],
      ["another currency than the price's", { ...credits, currency: "eur" }, "Unsupported purchase"],
      ["an unsupported currency", { ...credits, currency: "gbp" }, "currency must be usd or eur"],
      ["no currency", { line_items: credits.line_items, capabilities: {} }, "currency is required"],
      ["no capabilities", { line_items: credits.line_items, currency: "usd" }, "capabilities is required"],
      ["capabilities not an object", { ...credits, capabilities: [] }, "capabilities must be an object"],
      [
        "line_items not an array",
        { ...credits, line_items: {} },
        "line_items must be an array with exactly one item",
      ],
      [
        "a negative unit_amount",
        { ...credits, line_items: [{ id: "price_credits", unit_amount: -1 }] },
        "line_items[0].unit_amount must be an integer of at least 0 (minor units)",
      ],
      [
        "quantity 0",
        { ...credits, metadata: { quantity: 0 } },
        "metadata.quantity must be an integer of at least 1",
      ],
      [
        "a fractional quantity",
        { ...credits, metadata: { quantity: 1.5 } },
        "metadata.quantity must be an integer of at least 1",
      ],
      [
        "an 11-character billingCountry",
        { ...credits, metadata: { billingCountry: "x".repeat(11) } },
        "metadata.billingCountry must be a string of at most 10 characters",
      ],
      ["an array body", [credits], "Request body must be a JSON object"],
    ])("answers 400 for %s", async (_n, body, message) => {
      expectError(await create(body), 400, message);
    });

    it("answers 400 Invalid JSON body for malformed JSON", async () => {
      const r = await h.call("POST", BASE, {
        raw: "{",
        headers: { "content-type": "application/json", "idempotency-key": nextKey() },
      });
      expect(r.status).toBe(400);
    });

    it.each([
      ["unit_amount", { id: "price_premiumMonthly", unit_amount: 1900 }, "$.line_items[0].unit_amount"],
      ["name", { id: "price_premiumMonthly", name: "Individual monthly (old)" }, "$.line_items[0].name"],
    ])("answers 409 Price or purchase changed for a changed %s", async (_n, item, param) => {
      const r = await create({ ...purchase("premiumMonthly"), line_items: [item] });
      expectError(r, 409, "Price or purchase changed");
      expect(r.body.data).toMatchObject({
        param,
        price: { id: "price_premiumMonthly", name: "Individual monthly", unit_amount: 2900 },
      });
    });

    it("creates nothing on failure", async () => {
      await create({ ...credits, line_items: [{ id: "price_credits", unit_amount: 1 }] });
      expect(table(h.sim.state, "checkoutSessions").size).toBe(0);
    });
  });

  describe("idempotency", () => {
    it("replays the same key and body as the same session, unchanged", async () => {
      const first = await create(purchase("credits"), { key: "order-1" });
      h.sim.advance(60_000);
      const again = await create(purchase("credits"), { key: "order-1" });
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.text).toBe(first.text);
      expect(table(h.sim.state, "checkoutSessions").size).toBe(1);
    });

    it("treats key order in the body as the same request", async () => {
      const body = purchase("credits");
      const first = await create(body, { key: "order-2" });
      const reordered = { capabilities: {}, currency: "usd", line_items: body.line_items };
      expect((await create(reordered, { key: "order-2" })).body.id).toBe(first.body.id);
    });

    it("answers 409 for the same key with a different body", async () => {
      await create(purchase("credits"), { key: "order-3" });
      const r = await create(purchase("credits", { metadata: { quantity: 2 } }), { key: "order-3" });
      expectError(r, 409, "Idempotency-Key was already used with a different request");
      expect(r.body.data).toEqual({ code: "IDEMPOTENCY_CONFLICT" });
    });

    it("scopes keys per caller", async () => {
      const mine = await create(purchase("credits"), { key: "shared-key" });
      const theirs = await create(purchase("credits"), { key: "shared-key", as: "outsider" });
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it("lets a failed request be retried with the same key", async () => {
      const bad = await create({ ...purchase("premiumMonthly"), metadata: {} }, { key: "retry-me" });
      expect(bad.status).toBe(400);
      expect((await create(purchase("premiumMonthly"), { key: "retry-me" })).status).toBe(201);
    });
  });
});

describe("reading, refreshing, canceling and completing", () => {
  it("reads an owned session; another caller's and unknown sessions are 404", async () => {
    const s = await open();
    const mine = await h.call("GET", `${BASE}/${s.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual(s);
    for (const path of [`${BASE}/${s.id}`, `${BASE}/cs_unknown`]) {
      const as = path.endsWith(s.id) ? "outsider" : "owner";
      expectError(await h.call("GET", path, { as }), 404, "Checkout session not found", path);
      expectError(await h.call("POST", path, { as }), 404, "Checkout session not found", path);
      expectError(
        await h.call("POST", `${path}/cancel`, { as }),
        404,
        "Checkout session not found",
        `${path}/cancel`,
      );
      expectError(
        await h.call("POST", `${path}/complete`, { as }),
        404,
        "Checkout session not found",
        `${path}/complete`,
      );
    }
    expect((await h.call("GET", `${BASE}/${s.id}`)).body.status).toBe("requires_escalation");
  });

  it("refreshes with an empty body and refuses any body", async () => {
    const s = await open();
    const ok = await h.call("POST", `${BASE}/${s.id}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(s);
    for (const body of [{ line_items: [] }, {}]) {
      const r = await h.call("POST", `${BASE}/${s.id}`, { body });
      expectError(r, 400, "Hosted checkout sessions are changed through continue_url", `${BASE}/${s.id}`);
    }
    // Existence is checked first: another caller learns nothing from the body check.
    const foreign = await h.call("POST", `${BASE}/${s.id}`, { as: "outsider", body: {} });
    expect(foreign.status).toBe(404);
  });

  it("cancels an open session, and reports why a closed one cannot be canceled", async () => {
    const s = await open();
    const r = await h.call("POST", `${BASE}/${s.id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: s.id, status: "canceled", messages: [], order: null });
    const again = await h.call("POST", `${BASE}/${s.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("canceled");
    expect(again.body.messages).toEqual([
      {
        type: "error",
        code: "invalid",
        content_type: "plain",
        content: "Checkout session is already canceled",
      },
    ]);
    const complete = await h.call("POST", `${BASE}/${s.id}/complete`);
    expect(complete.body.status).toBe("canceled");
    expect(complete.body.messages[0]).toMatchObject({ type: "error", code: "invalid" });
    expect((await page("POST", `/checkout/${s.id}/complete`))?.status).toBe(409);
  });

  it("answers complete with requires_escalation until the buyer completes at continue_url", async () => {
    const s = await open("premiumMonthly", "outsider");
    const before = await h.call("POST", `${BASE}/${s.id}/complete`, { as: "outsider" });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      status: "requires_escalation",
      continue_url: s.continue_url,
      order: null,
    });
    expect(before.body.messages).toEqual([expect.objectContaining({ type: "info" })]);

    const confirmed = await page("POST", `/checkout/${s.id}/complete`);
    expect(confirmed?.status).toBe(303);
    expect(confirmed?.headers.get("location")).toBe(`/checkout/${s.id}`);

    const after = await h.call("POST", `${BASE}/${s.id}/complete`, { as: "outsider" });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({
      status: "completed",
      messages: [],
      order: {
        id: expect.stringMatching(/^ord_[A-Za-z0-9]{24}$/),
        checkout_session_id: s.id,
        permalink_url: s.continue_url,
      },
    });
    expect((await h.call("GET", `${BASE}/${s.id}`, { as: "outsider" })).body.status).toBe("completed");
    expect((await h.call("POST", `${BASE}/${s.id}`, { as: "outsider" })).body.order).toEqual(
      after.body.order,
    );

    const outsider = h.user("outsider");
    expect(outsider).toMatchObject({ plan: "premium", subscriptionActive: true });

    const cancel = await h.call("POST", `${BASE}/${s.id}/cancel`, { as: "outsider" });
    expect(cancel.body.status).toBe("completed");
    expect(cancel.body.messages[0].content).toBe("Checkout session is completed and cannot be canceled");
    expect((await page("POST", `/checkout/${s.id}/complete`))?.status).toBe(409);
  });

  it("sets the team plan for a team subscription", async () => {
    const s = await open("teamMonthly", "owner");
    await page("POST", `/checkout/${s.id}/complete`);
    expect(h.user("owner")).toMatchObject({
      plan: "team",
      subscriptionActive: true,
    });
  });

  it("records response credits bought by the buyer", async () => {
    const r = await create(purchase("credits", { metadata: { quantity: 2 } }));
    await page("POST", `/checkout/${r.body.id}/complete`);
    const owner = h.id("users", "owner");
    expect(creditAccounts(h.sim.state).get(owner)).toMatchObject({
      userId: owner,
      packs: 2,
      purchases: [{ sessionId: r.body.id, priceId: "price_credits", quantity: 2 }],
    });
    expect(h.sim.state.users.get(owner)?.plan).toBe("premium");
  });

  it("cancels the session when the buyer abandons checkout", async () => {
    const s = await open();
    const r = await page("POST", `/checkout/${s.id}/abandon`);
    expect(r?.status).toBe(303);
    expect((await h.call("GET", `${BASE}/${s.id}`)).body.status).toBe("canceled");
    expect((await page("POST", `/checkout/${s.id}/abandon`))?.status).toBe(409);
  });

  it("expires an open session 24 hours of virtual time after creation", async () => {
    const s = await open();
    h.sim.advance(CHECKOUT_TTL_MS - 1);
    expect((await h.call("GET", `${BASE}/${s.id}`)).body.status).toBe("requires_escalation");
    h.sim.advance(1);
    const r = await h.call("GET", `${BASE}/${s.id}`);
    expect(r.body).toMatchObject({ status: "expired", order: null });
    const complete = await h.call("POST", `${BASE}/${s.id}/complete`);
    expect(complete.body.status).toBe("expired");
    expect(complete.body.messages[0].content).toBe("Checkout session has expired and cannot be completed");
    const buyer = await page("POST", `/checkout/${s.id}/complete`);
    expect(buyer?.status).toBe(409);
    expect(await buyer?.text()).toContain("it has expired");
    expect(h.user("owner")?.plan).toBe("premium");
  });

  it("does not expire a completed session", async () => {
    const s = await open("credits");
    await page("POST", `/checkout/${s.id}/complete`);
    h.sim.advance(2 * CHECKOUT_TTL_MS);
    expect((await h.call("GET", `${BASE}/${s.id}`)).body.status).toBe("completed");
  });

  it.each([
    ["POST", BASE],
    ["GET", `${BASE}/cs_x`],
    ["POST", `${BASE}/cs_x`],
    ["POST", `${BASE}/cs_x/cancel`],
    ["POST", `${BASE}/cs_x/complete`],
  ])("answers 401 without authentication: %s %s", async (method, path) => {
    const r = await h.call(method, path, { as: null, headers: { "idempotency-key": "k" } });
    expectError(r, 401, "Unauthorized", path);
    expect(r.headers.get("ratelimit-limit")).toBeNull();
  });
});

describe("the checkout page", () => {
  it("shows the line item, the amount and the two buttons of an open session", async () => {
    const s = await open();
    const r = await page("GET", `/checkout/${s.id}`);
    expect(r?.status).toBe(200);
    expect(r?.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r?.headers.get("referrer-policy")).toBe("no-referrer");
    const html = (await r?.text()) ?? "";
    expect(html).toContain("Individual monthly");
    expect(html).toContain("$29.00");
    expect(html).toContain(`<form method="post" action="/checkout/${s.id}/complete">`);
    expect(html).toContain(`<form method="post" action="/checkout/${s.id}/abandon">`);
    expect(html).toContain('id="terms"');
  });

  it("shows the order once completed, without buttons", async () => {
    const s = await open();
    await page("POST", `/checkout/${s.id}/complete`);
    const html = (await (await page("GET", `/checkout/${s.id}`))?.text()) ?? "";
    expect(html).toContain("Payment confirmed");
    expect(html).not.toContain("<form");
  });

  it("escapes every value it shows", async () => {
    const evil: Price = {
      id: "price_evil",
      kind: "credits",
      plan: null,
      currency: "usd",
      unitAmount: 100,
      name: `<script>alert("x")</script>&'`,
    };
    table<Price>(h.sim.state, "prices").set(evil.id, evil);
    const r = await create({ line_items: [{ id: evil.id }], currency: "usd", capabilities: {} });
    const html = (await (await page("GET", `/checkout/${r.body.id}`))?.text()) ?? "";
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });

  it("answers 404 for an unknown session and 405 for other methods", async () => {
    expect((await page("GET", "/checkout/cs_nope"))?.status).toBe(404);
    expect((await page("POST", "/checkout/cs_nope/complete"))?.status).toBe(404);
    const s = await open();
    const post = await page("POST", `/checkout/${s.id}`);
    expect(post?.status).toBe(405);
    expect(post?.headers.get("allow")).toBe("GET, HEAD");
    expect((await page("GET", `/checkout/${s.id}/complete`))?.headers.get("allow")).toBe("POST");
    expect((await page("HEAD", `/checkout/${s.id}`))?.status).toBe(200);
  });

  it("leaves every other path to the API", async () => {
    for (const path of [
      "/checkout",
      "/checkout/",
      "/checkout/a/b/c",
      "/checkout/a/pay",
      "/api/acp/checkout_sessions",
    ]) {
      expect(parseCheckoutPath(path)).toBeNull();
      expect(await page("GET", path)).toBeNull();
    }
    expect(parseCheckoutPath("/checkout/cs_1%2F2")).toEqual({ id: "cs_1/2", action: null });
    expect(parseCheckoutPath("/checkout/cs_1/abandon")).toEqual({ id: "cs_1", action: "abandon" });
  });
});

describe("the continue page over HTTP", () => {
  it("is served by the simulator itself at continue_url, outside the API and without a key", async () => {
    const h = await harness();
    const created = await h.call("POST", "/api/acp/checkout_sessions", {
      headers: { "idempotency-key": "page-over-http" },
      body: { line_items: [{ id: "price_credits" }], currency: "usd", capabilities: {} },
    });
    const page = new URL(created.body.continue_url as string);
    const get = await h.sim.fetch(new Request(`http://sim.test${page.pathname}`));
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toContain("text/html");
    const done = await h.sim.fetch(
      new Request(`http://sim.test${page.pathname}/complete`, { method: "POST" }),
    );
    expect(done.status).toBe(303);
    const after = await h.call("POST", `/api/acp/checkout_sessions/${created.body.id}/complete`);
    expect(after.body.status).toBe("completed");
  });
});
