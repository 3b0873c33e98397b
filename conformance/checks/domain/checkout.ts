/**
 * Hosted checkout (ACP): the strict body, idempotency keys, `API-Version`, sessions of their owner only.
 */

import { limits } from "../../lib/description/contract.ts";
import type { Exchange } from "../../lib/http/http.ts";
import type { Role } from "../../lib/http/target.ts";
import { type CheckContext, check } from "../../lib/running/context.ts";
import { fresh, ok } from "../../lib/running/helpers.ts";

export const checkout = check(
  "domain/checkout",
  ["checkout/create", "checkout/own-sessions", "checkout/idempotency", "checkout/lifecycle"],
  {
    needs: { roles: ["owner"], prices: ["credits"] },
    mutates: true,
    async run(ctx) {
      const t = sessionKit(ctx);
      await creationRules(ctx, t);
      await replaysAndOwners(ctx, t);
    },
  },
);

type Ctx = CheckContext<
  "checkout/create" | "checkout/own-sessions" | "checkout/idempotency" | "checkout/lifecycle"
>;
type Kit = ReturnType<typeof sessionKit>;

/** What the check's requests share: the price, a valid body, creation with cleanup, fresh keys. */
function sessionKit(ctx: Ctx) {
  const price = ctx.info.prices.credits as {
    id: string;
    currency: string;
    unitAmount: number;
    name: string;
  };
  const body = { line_items: [{ id: price.id }], currency: price.currency, capabilities: {} };
  const create = (json: unknown, headers: Record<string, string>, role: Role = "owner") =>
    ctx.call({ op: "createCheckoutSession", as: ctx.as(role), json, headers });
  const cancelLater = (ex: Exchange) => {
    if (ex.status === 201 && ex.body?.id)
      ctx.defer(() =>
        ctx.call({ op: "cancelCheckoutSession", params: { id: ex.body.id }, as: ctx.as("owner") }),
      );
  };
  const expectStatus = async (
    label: string,
    json: unknown,
    headers: Record<string, string>,
    expected: number,
  ) => {
    const ex = await create(json, headers);
    cancelLater(ex);
    ctx.expectStatus(ex, expected, "checkout/create", `${label}:`);
    return ex;
  };
  const k = (n = 20) =>
    fresh("acp")
      .replaceAll(/[^a-zA-Z0-9_-]/g, "")
      .padEnd(n, "x")
      .slice(0, n);
  return { price, body, create, cancelLater, expectStatus, k };
}

/** The body's rules, Idempotency-Key and API-Version: each case answered as the contract says. */
async function creationRules(ctx: Ctx, { price, body, expectStatus, k }: Kit): Promise<void> {
  const created = await expectStatus(
    "a valid session with API-Version 2026-04-17",
    body,
    { "idempotency-key": k(), "api-version": "2026-04-17" },
    201,
  );
  if (created.status === 201) {
    ctx.expect(
      typeof created.body?.continue_url === "string",
      "checkout/create",
      "a new session has no continue_url",
      created,
    );
  }
  await expectStatus(
    `Idempotency-Key of ${limits().acpIdempotencyKey} characters`,
    body,
    { "idempotency-key": k(limits().acpIdempotencyKey) },
    201,
  );
  await expectStatus(
    `Idempotency-Key of ${limits().acpIdempotencyKey + 1} characters`,
    body,
    { "idempotency-key": k(limits().acpIdempotencyKey + 1) },
    400,
  );
  await expectStatus("Idempotency-Key with a dot", body, { "idempotency-key": "conformance.key" }, 400);
  await expectStatus("no Idempotency-Key", body, {}, 400);
  await expectStatus(
    "API-Version 2025-01-01",
    body,
    { "idempotency-key": k(), "api-version": "2025-01-01" },
    400,
  );
  await expectStatus(
    "an extra top-level property",
    { ...body, coupon: "FREE" },
    { "idempotency-key": k() },
    400,
  );
  await expectStatus(
    "two line items",
    { ...body, line_items: [{ id: price.id }, { id: price.id }] },
    { "idempotency-key": k() },
    400,
  );
  await expectStatus(
    "an unknown price",
    { ...body, line_items: [{ id: "price_conformanceUnknown" }] },
    { "idempotency-key": k() },
    400,
  );
  await expectStatus(
    "a changed unit_amount",
    { ...body, line_items: [{ id: price.id, unit_amount: price.unitAmount + 1 }] },
    { "idempotency-key": k() },
    409,
  );
  const sub = Object.values(ctx.info.prices).find((p) => p.kind === "subscription");
  if (sub) {
    await expectStatus(
      "a subscription without legalAcceptance",
      { line_items: [{ id: sub.id }], currency: sub.currency, capabilities: {} },
      { "idempotency-key": k() },
      400,
    );
    // Both consents must be true.
    await expectStatus(
      "a subscription whose legalAcceptance withholds withdrawal consent",
      {
        line_items: [{ id: sub.id }],
        currency: sub.currency,
        capabilities: {},
        metadata: { legalAcceptance: { termsAccepted: true, withdrawalConsent: false } },
      },
      { "idempotency-key": k() },
      400,
    );
  }
  for (const l of [
    "header:Idempotency-Key:maxLength",
    "header:Idempotency-Key:pattern",
    "header:API-Version:enum",
    "body:additionalProperties",
    "body.line_items:maxItems",
  ])
    ctx.coverage.limit(`createCheckoutSession:${l}`);
}

/** A replay is the same session, another purchase under the key is refused, a session is its owner's. */
async function replaysAndOwners(
  ctx: Ctx,
  { body, create, cancelLater, expectStatus, k }: Kit,
): Promise<void> {
  const key = k();
  const first = await expectStatus("a session", body, { "idempotency-key": key }, 201);
  const replay = await create(body, { "idempotency-key": key });
  if (first.status === 201)
    ctx.expect(
      ok(replay) && replay.body?.id === first.body.id,
      "checkout/idempotency",
      `replay answered ${replay.status} with session ${replay.body?.id}`,
      replay,
    );
  // The same key with another purchase is refused: never the first session, never a second one.
  const other = await create({ ...body, metadata: { quantity: 2 } }, { "idempotency-key": key });
  cancelLater(other);
  if (first.status === 201)
    ctx.expect(
      other.status === 400 || other.status === 409,
      "checkout/idempotency",
      `the same Idempotency-Key with another body answered ${other.status}${ok(other) ? ` with session ${other.body?.id}` : ""}, not a refusal`,
      other,
    );
  if (first.status === 201) {
    // Hosted sessions are changed through continue_url: a refresh takes an empty body only.
    const refresh = await ctx.call({
      op: "refreshCheckoutSession",
      params: { id: first.body.id },
      as: ctx.as("owner"),
      json: { buyer: { email: "conformance@example.com" } },
    });
    ctx.expectStatus(refresh, 400, "checkout/lifecycle", "a refresh with a non-empty body");
  }
  for (const k2 of ["teammate", "outsider"] as Role[]) {
    if (first.status !== 201 || !ctx.target.has(k2)) continue;
    const peek = await ctx.call({
      op: "getCheckoutSession",
      params: { id: first.body.id },
      as: ctx.as(k2),
    });
    ctx.expectStatus(peek, 404, "checkout/own-sessions", `${k2} reading the owner's session`);
  }
}
