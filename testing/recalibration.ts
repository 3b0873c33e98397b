/**
 * What the recalibration tests share: a fresh default world for the tests that call HTTP
 * (`withSimulator` in a describe), the calls they make by handle, and what a refused request must
 * leave alone.
 */
import { expect } from "vitest";
import { type CallOptions, harnessEachTest } from "./harness.ts";

/**
 * The running test's harness. HTTP tests start from a fresh default scenario (`withSimulator` in their
 * describe); the pure ones need none.
 */
export const { h, fresh: withSimulator } = harnessEachTest();

export const KEY = "x-service-idempotency-key";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const audience = (handle: string) => h.audience(handle);
export const recalibrate = (handle: string, body: unknown, opts: CallOptions = {}) =>
  h.call("POST", `/api/v1/audiences/${h.id("audiences", handle)}/recalibrate`, { body, ...opts });
/** The receipt of a recalibration of `handle` that must be accepted (202). */
export async function acceptedOperation(
  handle: string,
  body: unknown = { instruction: "Focus on buyers at mid-sized firms" },
) {
  const res = await recalibrate(handle, body);
  expect(res.status).toBe(202);
  return res.body.data.operation;
}
export const replay = (handle: string, key: string, body: unknown = {}) =>
  recalibrate(handle, body, { headers: { [KEY]: key } });
export const detail = async (handle: string) =>
  (await h.call("GET", `/api/v1/audiences/${h.id("audiences", handle)}`)).body.data;
export const progress = async (handle: string) =>
  (await h.call("GET", `/api/v1/audiences/${h.id("audiences", handle)}/progress`)).body.data;
export const ownedBy = (handle: string) => h.ownedBy(handle);

/** Everything a rejected request must leave alone. */
export const snapshot = () => h.snapshot();
