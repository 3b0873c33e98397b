/**
 * The docs page in headless Chromium: Scalar reads the document it is handed without a warning (it logged
 * 13 "document validation errors" for schemas without a type) and renders the reference.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_CHROMIUM, launchChromium, SKIP_NOTE } from "../../testing/chromium.ts";
import { createSimulator } from "../simulator.ts";
import { nodeHandler } from "./host.ts";
import { type RunningServer, startServer } from "./server.ts";

describe.skipIf(!HAVE_CHROMIUM)(HAVE_CHROMIUM ? "the docs page" : `the docs page (${SKIP_NOTE})`, () => {
  let browser: Browser;
  let server: RunningServer;
  beforeAll(async () => {
    const sim = createSimulator({ clock: "manual" });
    await sim.ready;
    server = await startServer(nodeHandler(sim), { port: 0, host: "127.0.0.1" });
    browser = (await launchChromium()) as Browser;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("renders the reference with no warning or error in the console", async () => {
    const page = await browser.newPage();
    const complaints: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "warning" || m.type() === "error") complaints.push(m.text());
    });
    page.on("pageerror", (e) => complaints.push(String(e)));
    // Scalar says "addDocument: N ms" once it has read (and validated) the document.
    const added = page.waitForEvent("console", {
      predicate: (m) => m.text().startsWith("addDocument"),
      timeout: 30_000,
    });
    await page.goto(`${server.url}/_docs`);
    await added;
    await page.getByText("Audience Research Service API").first().waitFor();
    expect(complaints).toEqual([]);
  }, 60_000);
});
