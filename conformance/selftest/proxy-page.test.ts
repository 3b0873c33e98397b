import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium } from "../../testing/chromium.ts";
import { serveProxy } from "../proxy/host.ts";
import type { ProxyReport } from "../proxy/judge.ts";
import { FAULTS } from "./faults.ts";
import { type BrokenServer, brokenServer } from "./harness.ts";

let server: BrokenServer;
let front: Awaited<ReturnType<typeof serveProxy>>;
let browser: Browser | null = null;

beforeAll(async () => {
  const fault = FAULTS.find((f) => f.name === "Cache-Control missing on private Audience answers");
  server = await brokenServer(fault?.fault ?? null);
  front = await serveProxy({
    upstream: server.info.baseUrl,
    port: 0,
    host: "127.0.0.1",
    onError: () => {},
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await front.close();
  await server.close();
});

it("shows the JSON report's numbers, the violations by rule, and new traffic on reload", async () => {
  const owner = { authorization: `Bearer ${server.info.keys.owner}` };
  const main = server.info.audiences.main as string;
  await fetch(`${front.url}/api/v1/auth/me`, { headers: owner });
  await fetch(`${front.url}/api/v1/audiences/${main}`, { headers: owner });
  await fetch(`${front.url}/api/v1/api-keys`, {
    method: "POST",
    headers: { ...owner, "content-type": "text/plain" },
    body: "{}",
  });
  await fetch(`${front.url}/api/v1/audiences/00000000-0000-4000-8000-000000000000`, { headers: owner });
  const report = async () => (await (await fetch(`${front.url}/__proxy/report`)).json()) as ProxyReport;
  const r = await report();
  expect(r.violations.length).toBeGreaterThan(0);
  if (!browser) return;

  const page = await browser.newPage();
  await page.goto(`${front.url}/__proxy/`);
  const count = async (id: string) =>
    Number(await page.locator(`[data-count="${id}"]`).getAttribute("data-value"));
  const client = r.violations.filter((v) => v.who === "request" || v.who === "client").length;
  expect(await count("exchanges")).toBe(r.exchanges);
  expect(await count("violations")).toBe(r.violations.length);
  expect(await count("client")).toBe(client);
  expect(await count("server")).toBe(r.violations.length - client);
  expect(await count("operations")).toBe(Object.keys(r.operations).length);
  expect(await page.locator("[data-violation]").count()).toBe(r.violations.length);
  const text = await page.locator("body").innerText();
  for (const v of r.violations) expect(text).toContain(v.message);
  expect(text).toContain("met a 404");
  expect(await page.content()).not.toMatch(/service_[A-Za-z0-9]{20}/);

  // Live: another exchange, and the page shows it once it reloads itself.
  await fetch(`${front.url}/api/v1/auth/me`, { headers: owner });
  await page.waitForFunction(
    (n) => Number(document.querySelector('[data-count="exchanges"]')?.getAttribute("data-value")) === n,
    r.exchanges + 1,
    { timeout: 10_000 },
  );
  expect(await count("exchanges")).toBe((await report()).exchanges);
  await page.close();
}, 60_000);
