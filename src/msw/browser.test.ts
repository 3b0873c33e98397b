import { mkdir } from "node:fs/promises";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, HAVE_CHROMIUM, SKIP_NOTE } from "../../testing/chromium.ts";
import { buildExample, type StaticServer, serveDir } from "../../testing/msw-example.ts";
import { nodeHandler } from "../node/host.ts";
import { type RunningServer, startServer } from "../node/server.ts";
import { createSimulator, type Simulator } from "../simulator.ts";

if (!HAVE_CHROMIUM) console.warn(`[browser tests] ${SKIP_NOTE}`);

const title = (name: string) => (HAVE_CHROMIUM ? name : `${name} (${SKIP_NOTE})`);

describe.skipIf(!HAVE_CHROMIUM)(title("in headless Chromium"), () => {
  let browser: Browser;
  let site: StaticServer;
  let sim: Simulator;
  let api: RunningServer;

  beforeAll(async () => {
    const dir = await buildExample();
    site = await serveDir(dir);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    sim = createSimulator({ clock: "manual" });
    await sim.ready;
    // The Node host, allowing the example site's origin (and only it).
    api = await startServer(nodeHandler(sim, { corsOrigins: [site.url] }), { port: 0, host: "127.0.0.1" });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await api?.close();
  });

  it("the MSW example page mocks the API in the tab: keys, members, a Formation reaching ready", async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${site.url}/`);
    await page.waitForSelector("body[data-done]", { timeout: 60_000 });
    expect(await page.getAttribute("body", "data-done"), (await page.textContent("#status")) ?? "").toBe(
      "true",
    );
    expect(errors).toEqual([]);

    // The tab's simulator is the same deterministic world as one built here (scenario default, seed 1).
    const owner = sim.manifest().users.owner!;
    const keys = (await (
      await sim.fetch(
        new Request("http://x/api/v1/api-keys", { headers: { authorization: `Bearer ${owner.apiKey}` } }),
      )
    ).json()) as { id: string }[];
    const shownKeys = await page.locator("#keys li").allTextContents();
    expect(shownKeys.length).toBe(keys.length);
    for (const k of keys) expect(shownKeys.join("\n")).toContain(k.id);

    expect(await page.textContent("#audience")).toMatch(/: \d+ members$/);
    expect(await page.locator("#members li").count()).toBeGreaterThan(0);
    const timeline = await page.locator("#timeline li").allTextContents();
    expect(timeline[0]).toMatch(/: building$/);
    expect(timeline.at(-1)).toMatch(/ready$/);
    expect(timeline.length).toBeGreaterThan(2);
    expect(await page.textContent("#status")).toBe("ready");

    // Nothing went to a network: every API call was answered by the worker.
    await mkdir("reports", { recursive: true });
    await page.screenshot({ path: "reports/browser-example.png", fullPage: true });
    await page.close();
  }, 90_000);

  it("a page on another origin calls the Node host: preflight passes, exposed headers are readable", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.url}/not-the-example`);
    const key = sim.manifest().users.owner!.apiKey;
    const main = sim.manifest().audiences.main!.id;
    const result = await page.evaluate(
      async ({ base, key, main }) => {
        // A PUT with JSON and Authorization is not a simple request: the browser sends a preflight first.
        const res = await fetch(`${base}/api/v1/audiences/${main}`, {
          method: "PUT",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "x-service-idempotency-key": "k-1",
          },
          body: JSON.stringify({ name: "Renamed from the browser" }),
        });
        const body = await res.json();
        const limited = await fetch(`${base}/api/v1/auth/me`, {
          headers: { prefer: "code=429", authorization: `Bearer ${key}` },
        });
        return {
          status: res.status,
          name: body.data?.name,
          limit: res.headers.get("RateLimit-Limit"),
          remaining: res.headers.get("RateLimit-Remaining"),
          limitedStatus: limited.status,
          retryAfter: limited.headers.get("Retry-After"),
        };
      },
      { base: api.url, key, main },
    );
    expect(result).toEqual({
      status: 200,
      name: "Renamed from the browser",
      limit: "300",
      remaining: expect.stringMatching(/^\d+$/),
      limitedStatus: 429,
      retryAfter: expect.stringMatching(/^\d+$/),
    });
    await context.close();
  }, 60_000);

  it("a page on an origin not in --cors-origin is refused by the browser", async () => {
    const other = await startServer(nodeHandler(sim, { corsOrigins: ["http://elsewhere.example"] }), {
      port: 0,
      host: "127.0.0.1",
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.url}/not-the-example`);
    const outcome = await page.evaluate(async (base) => {
      try {
        await fetch(`${base}/api/v1/auth/me`, { headers: { authorization: "Bearer x" } });
        return "answered";
      } catch (e) {
        return (e as Error).name;
      }
    }, other.url);
    expect(outcome).toBe("TypeError");
    await context.close();
    await other.close();
  }, 60_000);

  it("the docs page renders the contract with Scalar from local files only", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const foreign: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(api.url) && !r.url().startsWith("data:")) foreign.push(r.url());
    });
    await page.goto(`${api.url}/`);
    await page.waitForSelector("text=Audience Research", { timeout: 60_000 });
    await page.waitForTimeout(500);
    expect(await page.locator("#sim-keys").textContent()).toContain(sim.manifest().users.owner!.apiKey);
    expect(foreign).toEqual([]);
    await page.screenshot({ path: "reports/docs-page.png" });

    // "Try it": Scalar's client sends the request to this simulator with the owner's key prefilled.
    await page.click("text=Verify the API key");
    await page.locator("button", { hasText: "Test Request(get /auth/me)" }).first().click();
    await page.locator("button", { hasText: "Send" }).first().click();
    await page.waitForSelector("text=200 OK", { timeout: 30_000 });
    const [last] = sim.journal.find({ limit: 1 });
    expect(last).toMatchObject({
      method: "GET",
      path: "/api/v1/auth/me",
      status: 200,
      userId: sim.manifest().users.owner!.id,
    });
    expect(foreign).toEqual([]);
    await page.screenshot({ path: "reports/docs-try-it.png" });
    await context.close();
  }, 90_000);
});

if (!HAVE_CHROMIUM) {
  describe("browser tests", () => {
    it.skip(SKIP_NOTE, () => {});
  });
}
