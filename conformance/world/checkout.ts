/**
 * Checkout sessions of two accounts: each operates only on its own sessions (404 for the other's), a
 * session moves only by cancel and complete, and an idempotency key replays its session, never another's
 * and never a second one for a different purchase.
 */
import type { CheckContext } from "../lib/running/context.ts";
import { fresh } from "../lib/running/helpers.ts";
import type { SessionRec, World } from "./model.ts";
import type { Cast, Step } from "./steps.ts";

type S<K extends Step["k"]> = Extract<Step, { k: K }>;

export function sessionBody(c: CheckContext, quantity = 1): Record<string, unknown> {
  const price = c.info.prices.credits as { id: string; currency: string };
  return {
    line_items: [{ id: price.id }],
    currency: price.currency,
    capabilities: {},
    ...(quantity > 1 ? { metadata: { quantity } } : {}),
  };
}

export async function createSession(c: CheckContext, w: World, _cast: Cast, s: S<"createSession">) {
  const idempotencyKey = fresh("world").replaceAll(/[^a-zA-Z0-9_-]/g, "");
  const body = sessionBody(c);
  const ex = await c.call({
    op: "createCheckoutSession",
    as: c.as(s.as),
    json: body,
    headers: { "idempotency-key": idempotencyKey },
  });
  if (!c.expectStatus(ex, 201, "checkout/lifecycle", "create")) return;
  w.sessions.push({
    id: ex.body?.id,
    account: s.as,
    status: ex.body?.status,
    idempotencyKey,
    body,
    purchase: purchaseOf(ex.body),
  });
  c.coverage.transition("checkout", "∅", "open");
}

export async function session(c: CheckContext, w: World, _cast: Cast, s: S<"session">): Promise<void> {
  const x = w.sessions[s.s % w.sessions.length];
  if (!x) return;
  const op = {
    get: "getCheckoutSession",
    refresh: "refreshCheckoutSession",
    cancel: "cancelCheckoutSession",
    complete: "completeCheckoutSession",
  }[s.op];
  const ex = await c.call({ op, params: { id: x.id }, as: c.as(s.as) });
  const own = x.account === s.as;
  // The description says what cancel and complete do to an open session, not to a closed one: there a
  // refusal (4xx) is as good as a 200, as long as the session stays as it was.
  const closed = x.status === "canceled" || x.status === "completed";
  if (own && closed && (s.op === "cancel" || s.op === "complete") && ex.status >= 400 && ex.status < 500)
    return observeSession(c, x);
  if (
    !c.expect(
      ex.status === (own ? 200 : 404),
      "checkout/own-sessions",
      `${s.as} ${s.op} on a session of ${x.account} answered ${ex.status}, not ${own ? 200 : 404}`,
      ex,
    )
  )
    return;
  if (!own) return observeSession(c, x);
  const expected =
    s.op === "cancel"
      ? x.status === "completed"
        ? "completed"
        : "canceled"
      : s.op === "complete"
        ? x.status === "canceled"
          ? "canceled"
          : "requires_escalation"
        : x.status;
  c.expect(
    ex.body?.id === x.id && ex.body?.status === expected,
    "checkout/lifecycle",
    `${s.op} shows ${ex.body?.id} ${ex.body?.status}; the model has ${x.id} ${expected}`,
    ex,
  );
  c.expect(
    purchaseOf(ex.body) === x.purchase,
    "checkout/lifecycle",
    `${s.op} shows another purchase than the one created: ${purchaseOf(ex.body).slice(0, 200)}`,
    ex,
  );
  if (s.op === "complete" && expected === "requires_escalation")
    c.expect(
      typeof ex.body?.continue_url === "string",
      "checkout/lifecycle",
      "complete without buyer checkout gave no continue_url",
      ex,
    );
  if (s.op === "cancel" || s.op === "complete") {
    const name = (st: string) => (st === "canceled" || st === "completed" ? st : "open");
    const to = name(String(ex.body?.status));
    c.coverage.transition(
      "checkout",
      name(x.status),
      to === "open" && s.op === "complete" ? "open (complete before buyer)" : to,
    );
  }
  x.status = ex.body?.status ?? x.status;
}

/** The owner still reads the session as the model has it (after another account touched it). */
async function observeSession(c: CheckContext, x: SessionRec): Promise<void> {
  const ex = await c.call({ op: "getCheckoutSession", params: { id: x.id }, as: c.as(x.account) });
  c.expect(
    ex.status === 200 && ex.body?.status === x.status,
    "checkout/own-sessions",
    `after another account's call, ${x.account} reads ${ex.status} ${ex.body?.status}; the model has ${x.status}`,
    ex,
  );
}

export async function replaySession(c: CheckContext, w: World, cast: Cast, s: S<"replaySession">) {
  const x = w.sessions[s.s % w.sessions.length];
  if (!x) return;
  const headers = { "idempotency-key": x.idempotencyKey };
  const body = s.sameBody ? x.body : sessionBody(c, 2);
  const ex = await c.call({ op: "createCheckoutSession", as: c.as(x.account), json: body, headers });
  if (s.sameBody)
    c.expect(
      ex.status < 300 && ex.body?.id === x.id,
      "checkout/idempotency",
      `the same key and body answered ${ex.status} ${ex.body?.id}, not session ${x.id} again`,
      ex,
    );
  else
    c.expect(
      ex.status >= 400 || ex.body?.id === x.id,
      "checkout/idempotency",
      `the same key with a different purchase answered ${ex.status} with a new session ${ex.body?.id}`,
      ex,
    );
  // The same key from the other account is that account's own: never the first account's session.
  const other = cast.accounts.find((a) => a !== x.account);
  if (!other) return;
  const theirs = await c.call({ op: "createCheckoutSession", as: c.as(other), json: x.body, headers });
  c.expect(
    theirs.body?.id !== x.id,
    "checkout/idempotency",
    `${other} replaying ${x.account}'s idempotency key received ${x.account}'s session`,
    theirs,
  );
  if (theirs.status === 201)
    w.sessions.push({
      id: theirs.body?.id,
      account: other,
      status: theirs.body?.status,
      idempotencyKey: x.idempotencyKey,
      body: x.body,
      purchase: purchaseOf(theirs.body),
    });
}

/** What a session sells, as a comparable string: currency and each line item's price and amounts. */
function purchaseOf(body: unknown): string {
  const b = (body ?? {}) as { currency?: unknown; line_items?: unknown };
  return JSON.stringify([b.currency, b.line_items]);
}

export async function cleanupSessions(c: CheckContext, w: World): Promise<void> {
  for (const x of w.sessions.filter((y) => y.status !== "canceled" && y.status !== "completed"))
    await c.call({ op: "cancelCheckoutSession", params: { id: x.id }, as: c.as(x.account) });
}
