/**
 * The buyer's side of hosted checkout: the page behind an ACP session's `continue_url`. Not part of the
 * contract and not under `/api`; the buyer has no API key, so the session ID in the URL is the capability.
 *
 * | method, path                      | answer                                                          |
 * |-----------------------------------|-----------------------------------------------------------------|
 * | GET (HEAD) /checkout/{id}         | 200 HTML: the line item, the amount, and for an open session the |
 * |                                   | two buttons; 404 HTML for an unknown session                     |
 * | POST /checkout/{id}/complete      | the payment processor confirms: session `completed`, purchase   |
 * |                                   | applied; 303 to the page; 409 HTML when the session is not open |
 * | POST /checkout/{id}/abandon       | session `canceled`; 303 to the page; 409 HTML when not open     |
 *
 * Other methods on these paths are 405 with `Allow`. Every value shown is HTML-escaped, and the page is
 * served with a strict Content-Security-Policy, `no-store` and `no-referrer` (the URL is a secret).
 */

import { escapeHtml } from "../../core/control/html.ts";
import { Answer, type SimRequest } from "../../core/request/exchange.ts";
import type { ResourceModule } from "../../core/resource.ts";
import type { Services } from "../../core/services.ts";
import type { BuyerOutcome } from "./checkout.ts";
import { abandonByBuyer, CHECKOUT_PAGE_PREFIX, completeByBuyer, sessionForBuyer } from "./checkout.ts";
import type { CheckoutSessionRecord } from "./records.ts";

export type CheckoutPageServices = Pick<Services, "state" | "clock" | "pageBase">;

const HTML_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function formatAmount(minorUnits: number, currency: string): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(
    minorUnits / 100,
  );
}

type PagePath = { id: string; action: null | "complete" | "abandon" };

/** `/checkout/{id}`, `/checkout/{id}/complete`, `/checkout/{id}/abandon`; null for any other path. */
export function parseCheckoutPath(pathname: string): PagePath | null {
  if (!pathname.startsWith(CHECKOUT_PAGE_PREFIX)) return null;
  const segs = pathname.slice(CHECKOUT_PAGE_PREFIX.length).split("/");
  const raw = segs[0] ?? "";
  if (raw === "" || segs.length > 2) return null;
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (segs.length === 1) return { id, action: null };
  const action = segs[1];
  return action === "complete" || action === "abandon" ? { id, action } : null;
}

/** The page's path as the buyer sees it: below the world's page base (a sandbox's). */
const pagePath = (base: string, id: string): string =>
  `${base}${CHECKOUT_PAGE_PREFIX}${encodeURIComponent(id)}`;

const STATUS_TEXT: Readonly<Record<CheckoutSessionRecord["status"], string>> = {
  requires_escalation: "Awaiting your confirmation",
  completed: "Payment confirmed",
  canceled: "Canceled",
  expired: "Expired",
};

function layout(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
table{width:100%;border-collapse:collapse;margin:1rem 0}td,th{padding:.4rem 0;text-align:left}
td.n,th.n{text-align:right}tfoot td{font-weight:600;border-top:1px solid #ccc}
form{display:inline-block;margin:0 .5rem .5rem 0}button{font-size:1rem;padding:.5rem 1rem;cursor:pointer}
.note{color:#555;font-size:.9rem}.notice{padding:.5rem .75rem;background:#fff4e5;border:1px solid #f0c36d}
</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}

/** The page for one session; `notice` explains a refused action. */
export function renderCheckoutPage(s: CheckoutSessionRecord, base: string, notice?: string): string {
  const amount = s.price.unitAmount * s.quantity;
  const money = (n: number) => escapeHtml(formatAmount(n, s.price.currency));
  const path = pagePath(base, s.id);
  const actions =
    s.status === "requires_escalation"
      ? `<form method="post" action="${escapeHtml(`${path}/complete`)}"><button type="submit">Pay ${money(amount)}</button></form>
<form method="post" action="${escapeHtml(`${path}/abandon`)}"><button type="submit">Cancel checkout</button></form>
<p class="note">Open until ${escapeHtml(new Date(s.expiresAt).toISOString())}.</p>`
      : s.status === "completed"
        ? `<p>Order <code>${escapeHtml(s.orderId)}</code> is confirmed.</p>`
        : "<p>This checkout can no longer be completed.</p>";
  const main = `<h1>Checkout</h1>
<p class="note">Simulated checkout: no payment is taken.</p>
${notice === undefined ? "" : `<p class="notice" role="alert">${escapeHtml(notice)}</p>\n`}<p>Status: <strong>${escapeHtml(STATUS_TEXT[s.status])}</strong></p>
<table>
<thead><tr><th>Item</th><th class="n">Quantity</th><th class="n">Unit price</th><th class="n">Amount</th></tr></thead>
<tbody><tr><td>${escapeHtml(s.price.name)}</td><td class="n">${escapeHtml(String(s.quantity))}</td><td class="n">${money(s.price.unitAmount)}</td><td class="n">${money(amount)}</td></tr></tbody>
<tfoot><tr><td colspan="3">Total (tax ${money(0)})</td><td class="n">${money(amount)}</td></tr></tfoot>
</table>
${actions}
<section id="terms">
<h2>Terms of use</h2>
<p class="note">Simulated terms of use for this simulator. A subscription needs the terms and the withdrawal waiver accepted when its checkout session is created.</p>
</section>`;
  return layout(`Checkout: ${s.price.name}`, main);
}

function html(status: number, body: string, method: string, extra: Record<string, string> = {}): Answer {
  return new Answer(status, { ...HTML_HEADERS, ...extra }, method === "HEAD" ? null : body);
}

function notFoundPage(method: string): Answer {
  const main = "<h1>Checkout not found</h1>\n<p>This checkout link is not valid.</p>";
  return html(404, layout("Checkout not found", main), method);
}

const WHY_CLOSED: Record<Exclude<BuyerOutcome, "completed" | "canceled">["refused"], string> = {
  completed: "it is already completed",
  canceled: "it was canceled",
  expired: "it has expired",
};

function refusal(outcome: Exclude<BuyerOutcome, "completed" | "canceled">, action: "complete" | "abandon") {
  const verb = action === "complete" ? "completed" : "canceled";
  return `This checkout cannot be ${verb}: ${WHY_CLOSED[outcome.refused]}.`;
}

/**
 * Serves the checkout page paths; null for any other path, so the caller falls through to the API.
 * Needs only the state and the virtual clock (the order ID was drawn when the session was created).
 */
export async function handleCheckoutPage(
  request: SimRequest,
  url: URL,
  services: CheckoutPageServices,
): Promise<Answer | null> {
  const route = parseCheckoutPath(url.pathname);
  if (!route) return null;
  const method = request.method.toUpperCase();
  if (route.action === null) {
    if (method !== "GET" && method !== "HEAD")
      return html(405, layout("Method Not Allowed", "<h1>Method Not Allowed</h1>"), method, {
        allow: "GET, HEAD",
      });
    const s = sessionForBuyer(services, route.id);
    return s ? html(200, renderCheckoutPage(s, services.pageBase), method) : notFoundPage(method);
  }
  if (method !== "POST") {
    return html(405, layout("Method Not Allowed", "<h1>Method Not Allowed</h1>"), method, { allow: "POST" });
  }
  // The form's body carries nothing the simulator needs; drain it so the connection can be reused.
  await request.body?.cancel().catch(() => {});
  const s = sessionForBuyer(services, route.id);
  if (!s) return notFoundPage(method);
  const outcome = route.action === "complete" ? completeByBuyer(services, s) : abandonByBuyer(services, s);
  if (typeof outcome === "object") {
    return html(409, renderCheckoutPage(s, services.pageBase, refusal(outcome, route.action)), method);
  }
  return new Answer(303, { ...HTML_HEADERS, location: pagePath(services.pageBase, s.id) }, null);
}

/** The buyer's page, served outside the contract at each session's `continue_url`. */
export const checkoutPage: ResourceModule = {
  routes: {},
  outside: { claims: (pathname) => parseCheckoutPath(pathname) !== null, serve: handleCheckoutPage },
};
