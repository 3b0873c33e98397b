/**
 * What the export tests share: an export requested and run to ready, and its file downloaded as bytes with
 * the answer checked against the contract.
 */
import { expect } from "vitest";
import { checkResponse } from "../src/contract/responses.ts";
import { EXPORT_RUN_MS, EXPORT_START_DELAY_MS } from "../src/resources/exports/exports.ts";
import type { Harness } from "./harness.ts";

export const audiencePath = (h: Harness, audience: string, prefix = "/api/v1"): string =>
  `${prefix}/audiences/${h.id("audiences", audience)}`;
const base = audiencePath;

/** Downloads bytes as they are (the harness reads text), checking the answer against the contract. */
export async function download(h: Harness, path: string, as = "owner") {
  const res = await h.sim.fetch(
    new Request(`http://sim.test${path}`, { headers: { authorization: `Bearer ${h.key(as)}` } }),
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get("content-type") ?? "";
  const text = type.startsWith("application/json") ? new TextDecoder().decode(bytes) : "";
  expect(checkResponse("downloadExport", res.status, res.headers, text)).toEqual([]);
  return { status: res.status, headers: res.headers, bytes, body: text ? JSON.parse(text) : undefined };
}

/** Requests an export and lets it finish; returns the ready descriptor. */
export async function exportReady(h: Harness, audience: string, kind: string, format: string, as = "owner") {
  const posted = await h.call("POST", `${base(h, audience)}/export`, { as, body: { kind, format } });
  expect(posted.status).toBe(200);
  h.sim.advance(EXPORT_START_DELAY_MS + EXPORT_RUN_MS);
  const status = await h.call(
    "GET",
    `${base(h, audience)}/export-status?kind=${kind}&format=${posted.body.data.format}`,
    {
      as,
    },
  );
  expect(status.body.data.status).toBe("ready");
  return status.body.data;
}
