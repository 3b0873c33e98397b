/** The deliberate faults that the checks of checks/domain/checkout.ts must each report. */

import * as checks from "../../../checks/domain/checkout.ts";
import type { FaultCase } from "../../fault-kit.ts";
import { bodyOf, casesOf, editWhen, is, on, withBody } from "../../fault-kit.ts";
import { keyOf } from "../../harness.ts";
import { type Json, remember, retried, withHeader } from "../helpers.ts";

/** A checkout body with both consents given: what a fault sends again in place of a refused one. */
const withConsent = (j: Json): Json => ({
  ...j,
  metadata: { ...(j.metadata as Json), legalAcceptance: { termsAccepted: true, withdrawalConsent: true } },
});

export const CHECKOUT_FAULTS: FaultCase[] = [
  ...casesOf(checks.checkout, {
    "ACP create accepts extra top-level properties": async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const { req: copy, json } = await bodyOf(req);
      const b = json as Record<string, unknown> | undefined;
      if (b && "coupon" in b) {
        delete b.coupon;
        return next(withBody(copy, b));
      }
      return next(copy);
    },
    "ACP API-Version ignored": async (req, next) => {
      if (!req.headers.has("api-version")) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("api-version");
      return next(new Request(req.url, { method: req.method, headers, body: await req.text() }));
    },
  }),
  ...casesOf(checks.checkout, {
    "the same Idempotency-Key with another body replays the first session": async (req, next, env) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const firsts = remember(env, "acp-bodies", () => new Map<string, string>());
      const at = `${keyOf(req)} ${req.headers.get("idempotency-key")}`;
      const text = await req.text();
      const first = firsts.get(at);
      if (first === undefined) firsts.set(at, text);
      return next(new Request(req.url, { method: "POST", headers: req.headers, body: first ?? text }));
    },
  }),
  ...casesOf(checks.checkout, {
    "a replay with the same Idempotency-Key makes a second session": async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions$/)) return next(req);
      const headers = new Headers(req.headers);
      headers.delete("idempotency-key");
      return next(new Request(req.url, { method: "POST", headers, body: await req.text() }));
    },
    "a refresh with a body is taken": async (req, next) => {
      if (!is(req, "POST", /\/checkout_sessions\/[^/]+$/)) return next(req);
      const headers = new Headers(req.headers);
      return next(new Request(req.url, { method: "POST", headers }));
    },
    "a created session has no continue_url": editWhen(on("POST", /\/checkout_sessions$/, 201), (b) => {
      if (b) delete b.continue_url;
    }),
  }),
  ...casesOf(checks.checkout, {
    "a session with two line items accepted": retried(
      "POST",
      /\/checkout_sessions$/,
      (status, j) => status === 400 && (j.line_items as unknown[] | undefined)?.length === 2,
      (j) => ({ ...j, line_items: (j.line_items as unknown[]).slice(0, 1) }),
    ),
    "a subscription sold without legal acceptance": retried(
      "POST",
      /\/checkout_sessions$/,
      (status, j) => status === 400 && !(j.metadata as Json | undefined)?.legalAcceptance,
      withConsent,
    ),
    "legal acceptance without withdrawal consent accepted": retried(
      "POST",
      /\/checkout_sessions$/,
      (status, j) => {
        const l = (j.metadata as Json | undefined)?.legalAcceptance as Json | undefined;
        return (
          status === 400 && l !== undefined && (l.termsAccepted === false || l.withdrawalConsent === false)
        );
      },
      withConsent,
    ),
    "a changed unit_amount accepted (201, not 409)": retried(
      "POST",
      /\/checkout_sessions$/,
      (status) => status === 409,
      (j) => ({ ...j, line_items: (j.line_items as Json[]).map(({ unit_amount: _, ...rest }) => rest) }),
    ),
    "an Idempotency-Key of 129 characters accepted": async (req, next) => {
      const key = req.headers.get("idempotency-key") ?? "";
      if (!is(req, "POST", /\/checkout_sessions$/) || key.length <= 128) return next(req);
      return next(withHeader(req, "idempotency-key", key.slice(0, 128), await req.text()));
    },
  }),
];
