/**
 * The dashboard in headless Chromium: a key read off the page, an export followed to ready by moving the
 * clock, a fault armed and its failure seen in the journal with the answer's body, a bad scenario document
 * refused with its problems, a snapshot loaded; with a control token, nothing until the token is given. The
 * screenshot in the README is made here.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAVE_CHROMIUM, launchChromium, SKIP_NOTE } from "../../../../testing/chromium.ts";
import { nodeHandler } from "../../../node/host.ts";
import { type RunningServer, startServer } from "../../../node/server.ts";
import { createSandboxes, createSimulator, type Simulator } from "../../../simulator.ts";

/**
 * The dashboard guide's screenshots (docs/serving.md), at a laptop's 1280x800: rewritten with
 * UPDATE_SCREENSHOTS=1, otherwise made in a scratch directory.
 */
const shot = (name: string) =>
  process.env.UPDATE_SCREENSHOTS
    ? join(import.meta.dirname, "../../../../docs", name)
    : join(tmpdir(), `dashboard-${process.pid}`, name);
const SCREENSHOT = shot("dashboard.png");
const SANDBOX_SCREENSHOT = shot("dashboard-sandbox.png");

/** The panels that scroll inside themselves or spill past their edge: none, at any size tested. */
function clippedPanels(p: Page): Promise<(string | null | undefined)[]> {
  return p.evaluate(() =>
    [...document.querySelectorAll("section")]
      .filter((s) => !s.hidden && (s.scrollHeight > s.clientHeight + 1 || s.scrollWidth > s.clientWidth + 1))
      .map((s) => s.querySelector("h2")?.textContent),
  );
}

async function serve(controlToken?: string): Promise<{ sim: Simulator; server: RunningServer }> {
  const sim = createSimulator({ clock: "manual", ...(controlToken ? { controlToken } : {}) });
  await sim.ready;
  return { sim, server: await startServer(nodeHandler(sim), { port: 0, host: "127.0.0.1" }) };
}

describe.skipIf(!HAVE_CHROMIUM)(HAVE_CHROMIUM ? "the dashboard" : `the dashboard (${SKIP_NOTE})`, () => {
  let browser: Browser;
  let open: Awaited<ReturnType<typeof serve>>;
  let guarded: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    browser = (await launchChromium()) as Browser;
    open = await serve();
    guarded = await serve("s3cret-token");
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await open?.server.close();
    await guarded?.server.close();
  });

  async function page(url: string): Promise<Page> {
    const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    p.on("pageerror", (e) => errors.push(String(e)));
    p.on("close", () => expect(errors).toEqual([]));
    await p.goto(url);
    return p;
  }

  it("shows keys, follows an export to ready, shows an armed fault's failure in the journal", async () => {
    const { sim, server } = open;
    const p = await page(`${server.url}/__sim/`);
    const owner = sim.manifest().users.owner;
    await p.waitForSelector('#users tr[data-handle="owner"] .key');
    expect(await p.textContent('#users tr[data-handle="owner"] .key')).toBe(owner?.apiKey);

    const main = sim.manifest().audiences.main?.id;
    const exported = await fetch(`${server.url}/api/v1/audiences/${main}/export`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner?.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "brief", format: "docx" }),
    });
    expect(exported.status).toBe(200);
    const row = '#world table[data-section="Exports"] tr[data-id]';
    await p.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes("queued"), row);
    for (let i = 0; i < 10; i++) {
      if ((await p.textContent(row))?.includes("ready")) break;
      await p.click("#next-job");
      await p.waitForTimeout(300);
    }
    expect(await p.textContent(row)).toContain("ready");
    // The world's name and seed in the header; a long value shortened in its cell, whole on hover.
    expect(await p.textContent("#where")).toBe("scenario default (seed 1)");
    const exportPath = `/api/v1/audiences/${main}/export`;
    await p.waitForSelector(`#journal td.long[title="${exportPath}"]`);
    // Nothing hidden in an inner scroll box, and nothing past a panel's edge.
    expect(await clippedPanels(p)).toEqual([]);

    await p.fill("#fault-path", "/api/v1/auth/me");
    await p.fill("#fault-status", "503");
    await p.fill("#fault-times", "1");
    await p.click("#fault-form button:not([type])");
    await p.waitForSelector("#faults tr[data-fault]");
    const me = await fetch(`${server.url}/api/v1/auth/me`, {
      headers: { authorization: `Bearer ${owner?.apiKey}` },
    });
    expect(me.status).toBe(503);
    const failed = "#journal tr.bad";
    await p.waitForSelector(failed);
    expect(await p.textContent(failed)).toContain("/api/v1/auth/me");
    await p.click(failed);
    expect(await p.textContent("#detail")).toContain("Injected fault");
    expect(await p.textContent("#detail")).not.toContain(owner?.apiKey as string);
    expect(await p.textContent("#faults")).not.toContain("503");
    expect(await p.textContent("#journal")).toContain("owner");
    mkdirSync(join(SCREENSHOT, ".."), { recursive: true });
    await p.evaluate(() => window.scrollTo(0, 0));
    await p.screenshot({ path: SCREENSHOT, fullPage: false });
    await p.close();
  }, 60_000);

  it("refuses a bad scenario document with its problems, and loads a snapshot", async () => {
    const { sim, server } = open;
    const p = await page(`${server.url}/__sim/`);
    await p.waitForSelector('#users tr[data-handle="owner"]');
    const dir = join(tmpdir(), `dashboard-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ name: 12, users: { owner: { plan: "gold" } } }));
    await p.setInputFiles("#document", bad);
    await p.click("#upload");
    await p.waitForSelector("#problems li");
    expect(await p.textContent("#problems")).toMatch(/\/users\/owner\/plan|\/name/);

    const renamed = structuredClone(sim.snapshot()) as unknown as {
      state: { tables: { audiences: [string, { name: string }][] } };
    };
    const first = renamed.state.tables.audiences[0];
    if (first) first[1].name = "Loaded from a snapshot";
    const file = join(dir, "snapshot.json");
    writeFileSync(file, JSON.stringify(renamed));
    await p.setInputFiles("#snapshot-file", file);
    await p.click("#load-snapshot");
    await p.waitForFunction(
      () => document.querySelector("#world-message")?.textContent === "loaded the snapshot",
    );
    await p.waitForFunction(() =>
      document.querySelector("#world")?.textContent?.includes("Loaded from a snapshot"),
    );
    await p.close();
  }, 60_000);

  it("with a control token, shows nothing until the token is given", async () => {
    const { sim, server } = guarded;
    const html = await (await fetch(`${server.url}/__sim/`)).text();
    const key = sim.manifest().users.owner?.apiKey as string;
    expect(html).not.toContain(key);
    const p = await page(`${server.url}/__sim/`);
    await p.waitForSelector("#login:not([hidden])");
    expect(await p.isHidden("#app")).toBe(true);
    expect(await p.content()).not.toContain(key);
    await p.fill("#token", "wrong");
    await p.click("#login button");
    await p.waitForFunction(() => (document.querySelector("#login-error")?.textContent ?? "") !== "");
    expect(await p.content()).not.toContain(key);
    await p.fill("#token", "s3cret-token");
    await p.click("#login button");
    await p.waitForSelector('#users tr[data-handle="owner"] .key');
    expect(await p.textContent('#users tr[data-handle="owner"] .key')).toBe(key);
    await p.close();
  }, 60_000);

  it("lets an operator make a sandbox and open its own dashboard with its token", async () => {
    const main = createSimulator({ clock: "manual", controlToken: "operator-token" });
    await main.ready;
    const host = createSandboxes({ clock: "manual", controlToken: "operator-token" }, main);
    const server = await startServer(nodeHandler(host), { port: 0, host: "127.0.0.1" });
    try {
      const p = await page(`${server.url}/__sim/`);
      await p.fill("#token", "operator-token");
      await p.click("#login button");
      await p.waitForSelector("#sandboxes-panel:not([hidden])");
      await p.click("#sandbox-new");
      await p.waitForSelector("#sandboxes a");
      const made = JSON.parse((await p.textContent("#sandbox-made")) ?? "{}");
      expect(made.id).toMatch(/^[a-z2-7]{12}$/);
      await p.click("#sandboxes a");
      await p.waitForSelector("#login:not([hidden])");
      await p.fill("#token", made.controlToken);
      await p.click("#login button");
      await p.waitForSelector('#users tr[data-handle="owner"] .key');
      expect(await p.textContent("#where")).toMatch(
        new RegExp(`^sandbox ${made.id}: scenario default \\(seed \\d+\\)$`),
      );
      expect(await p.textContent('#users tr[data-handle="owner"] .key')).toMatch(/^service_sbx_/);
      // Long paths in its journal (a Formation of main read by its sandbox key): shortened, nothing past an edge.
      const key = (await p.textContent('#users tr[data-handle="owner"] .key')) as string;
      const world = main.manifest();
      const formation = Object.values(world.formations)[0];
      const audienceId = world.audiences[formation?.audience ?? "main"]?.id;
      const long = `/api/v1/audiences/${audienceId}/formations/${formation?.id}`;
      for (let i = 0; i < 3; i++)
        await fetch(`${server.url}${long}`, { headers: { authorization: `Bearer ${key}` } });
      await p.waitForSelector(`#journal td.long[title="${long}"]`);
      expect(await clippedPanels(p)).toEqual([]);
      mkdirSync(join(SANDBOX_SCREENSHOT, ".."), { recursive: true });
      await p.evaluate(() => window.scrollTo(0, 0));
      await p.screenshot({ path: SANDBOX_SCREENSHOT, fullPage: false });
      await p.close();
    } finally {
      await server.close();
    }
  }, 60_000);
});
