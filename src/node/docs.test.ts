import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openapi } from "../contract/document.ts";
import { createSimulator, type Simulator } from "../simulator.ts";
import { SCALAR_BUNDLE_PATH, SCALAR_DOCUMENT_PATH } from "./docs.ts";
import { withStatedTypes } from "./docs-document.ts";
import { nodeHandler } from "./host.ts";
import { type RunningServer, startServer } from "./server.ts";

describe("docs page", () => {
  let sim: Simulator;
  let server: RunningServer;
  beforeAll(async () => {
    sim = createSimulator({ clock: "manual" });
    await sim.ready;
    server = await startServer(nodeHandler(sim), { port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server.close());

  it.each(["/", "/_docs"])("GET %s renders the reference with the scenario's keys", async (path) => {
    const r = await request(`${server.url}${path}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    const html = await r.body.text();
    expect(html).toContain(`<script src="${SCALAR_BUNDLE_PATH}"></script>`);
    expect(html).toContain(`"url":"${SCALAR_DOCUMENT_PATH}"`);
    expect(html).toContain('<a href="/_openapi.json">');
    // Try-it goes to this simulator, as the owner.
    expect(html).toContain(`"url":"${server.url}/api/v1"`);
    const m = sim.manifest();
    expect(html).toContain(`"token":"${m.users.owner!.apiKey}"`);
    for (const [handle, u] of Object.entries(m.users)) {
      expect(html).toContain(`<td>${handle}</td>`);
      expect(html).toContain(u.apiKey);
    }
    // Nothing is loaded from elsewhere.
    expect(html).not.toMatch(/https:\/\/(cdn|fonts|unpkg|esm)/);
    expect(html).toContain('"withDefaultFonts":false');
    // No favicon request (it was a 404 in every browser's console).
    expect(html).toContain('<link rel="icon" href="data:,">');
  });

  it("shows no API key when the keys are behind a control token (or the control plane is off)", async () => {
    const hidden = await startServer(nodeHandler(sim, { showKeys: false }), { port: 0, host: "127.0.0.1" });
    try {
      for (const path of ["/", "/_docs"]) {
        const html = await (await request(`${hidden.url}${path}`)).body.text();
        expect(html).toContain("API keys are not shown here");
        expect(html).not.toMatch(/service_[A-Za-z0-9]/);
        for (const u of Object.values(sim.manifest().users)) expect(html).not.toContain(u.apiKey);
      }
    } finally {
      await hidden.close();
    }
  });

  it("serves Scalar's standalone bundle from node_modules", async () => {
    const r = await request(`${server.url}${SCALAR_BUNDLE_PATH}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    const js = await r.body.text();
    expect(js.length).toBeGreaterThan(1_000_000);
    expect(js).toContain("createApiReference");
    expect(js).toContain("@scalar/api-reference");
  });

  it("hands the reference the contract with every schema's type stated", async () => {
    const r = await request(`${server.url}${SCALAR_DOCUMENT_PATH}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(await r.body.json()).toEqual(withStatedTypes(openapi));
  });

  it("leaves the API alone", async () => {
    const r = await request(`${server.url}/_openapi.json`);
    expect(r.statusCode).toBe(200);
    expect(((await r.body.json()) as { openapi: string }).openapi).toBe("3.1.0");
    const post = await request(`${server.url}/`, { method: "POST" });
    await post.body.text();
    expect(post.statusCode).toBe(404);
  });
});
