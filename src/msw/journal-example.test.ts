/**
 * The README's frontend test that asserts on the journal: a piece of app code runs against the MSW
 * handlers, and the test states what it sent ("exported once, as PDF") as WireMock's `verify` would.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createHandlers } from "./index.ts";

const API = "http://api.test";
const handlers = createHandlers({ clock: "manual", origin: API });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

/** The app's code under test: export a brief, and do not export again while one is on its way. */
async function exportBrief(key: string, audienceId: string, format: "pdf" | "docx"): Promise<number> {
  const res = await fetch(`${API}/api/v1/audiences/${audienceId}/export`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "brief", format }),
  });
  return res.status;
}

it("the app exported once, as PDF", async () => {
  const sim = handlers.simulator;
  await sim.ready;
  const { users, audiences } = sim.manifest();
  sim.clearRequests();
  expect(await exportBrief(users.owner?.apiKey as string, audiences.main?.id as string, "pdf")).toBe(200);

  const exports = sim.requests({ method: "POST", path: "/api/v1/audiences/*/export", user: "owner" });
  expect(exports).toHaveLength(1);
  expect(JSON.parse(exports[0]?.request?.body ?? "{}")).toEqual({ kind: "brief", format: "pdf" });
  expect(exports[0]?.response?.headers["content-type"]).toMatch(/^application\/json/);
  // Keys never show in the journal.
  expect(JSON.stringify(exports)).not.toContain(users.owner?.apiKey);
});
