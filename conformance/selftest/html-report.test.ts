/**
 * The HTML report (`--reporter html=FILE`), opened in headless Chromium: a run against a faulty server with
 * passing, failing and skipped checks, whose page shows the same counts as the JSON reports beside it,
 * every violation with its rule and curl, and nothing it did not escape. Skipped, visibly, where
 * /usr/bin/chromium is missing (`.ci/run` installs it).
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium } from "../../testing/chromium.ts";
import { allChecks } from "../checks/index.ts";
import { sentenceIndexWith } from "../index/index.ts";
import { runChecks } from "../lib/running/runner.ts";
import { FAULTS } from "./faults.ts";
import { type BrokenServer, brokenServer } from "./harness.ts";

const dir = mkdtempSync(join(tmpdir(), "conformance-html-"));
const ONLY =
  /^(generic\/auth-401|domain\/identity|domain\/checkout|stateful\/world|domain\/filter-truncation|cases\/keys):/;
let server: BrokenServer;
let browser: Browser | null = null;

beforeAll(async () => {
  const fault = FAULTS.find((f) => f.name === "a deleted key keeps working under /v1");
  server = await brokenServer(fault?.fault ?? null, 21);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

it("shows the counts of the JSON reports, each violation with its rule and curl", async () => {
  const before = process.env.CONFORMANCE_REPORTS_DIR;
  process.env.CONFORMANCE_REPORTS_DIR = dir;
  // One check of the run cannot run here: the target lacks what it needs, so it is skipped.
  const { large: _large, ...audiences } = server.info.audiences;
  const info = { ...server.info, audiences };
  try {
    await runChecks(info, {
      sentences: sentenceIndexWith(allChecks),
      checks: allChecks,
      pattern: ONLY,
      reporters: [
        { name: "json", file: join(dir, "run.json") },
        { name: "html", file: join(dir, "run.html") },
      ],
      print: () => {},
    });
  } finally {
    if (before === undefined) delete process.env.CONFORMANCE_REPORTS_DIR;
    else process.env.CONFORMANCE_REPORTS_DIR = before;
  }
  const run = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as {
    checks: { status: string }[];
  };
  const found = JSON.parse(readFileSync(join(dir, "conformance-violations.json"), "utf8"));
  const coverage = JSON.parse(readFileSync(join(dir, "conformance-coverage.json"), "utf8"));
  const statuses = (s: string) => run.checks.filter((c) => c.status === s).length;
  expect([statuses("passed"), statuses("failed"), statuses("skipped")].every((n) => n > 0)).toBe(true);
  if (!browser) return;

  const page = await browser.newPage();
  await page.goto(pathToFileURL(join(dir, "run.html")).href);
  const count = async (id: string) =>
    Number(await page.locator(`[data-count="${id}"]`).getAttribute("data-value"));
  expect(await count("passed")).toBe(statuses("passed"));
  expect(await count("failed")).toBe(statuses("failed"));
  expect(await count("skipped")).toBe(statuses("skipped"));
  expect(await count("violations")).toBe(found.violations.length);
  expect(await count("rules")).toBe(coverage.rules.reached.length);
  expect(await count("operations")).toBe(coverage.operations.exercised);
  expect(await count("statuses")).toBe(coverage.statuses.exercised);
  expect(await count("limits")).toBe(coverage.limits.exercised);
  expect(await count("cases")).toBe(coverage.cases.judged);
  expect(coverage.cases.judged).toBeGreaterThan(0);
  expect(await count("inconclusive")).toBe(found.inconclusive.length);
  expect(await page.locator("[data-violation]").count()).toBe(found.violations.length);
  const text = await page.locator("body").innerText();
  for (const v of found.violations as { rule: string; message: string }[]) {
    expect(text).toContain(v.rule);
    expect(text).toContain(v.message);
  }
  expect(await page.locator("details summary", { hasText: "curl" }).count()).toBeGreaterThan(0);
  // Every sentence of the contract, one look-up each: its pointer, rules, the checks of those rules, faults.
  type Row = {
    text: string;
    pointers: string[];
    code: string;
    rules: string[];
    checks: string[];
    reached: boolean;
  };
  const each = coverage.sentences.each as Row[];
  expect(each.length).toBe(coverage.sentences.total);
  expect(each.every((s) => s.pointers.length > 0 && s.pointers.every((p) => p.startsWith("/")))).toBe(true);
  expect(each.filter((s) => s.reached).length).toBe(coverage.sentences.reached);
  const auth = each.find((s) => s.code === "judged" && s.checks.includes("generic/auth-401"));
  expect(auth?.rules.length).toBeGreaterThan(0);
  expect(await page.locator("#sentences tr[data-pointer]").count()).toBe(each.length);
  // The table is folded until opened: a click opens it.
  await page.locator("#sentences summary").click();
  const authRow = await page
    .locator(`#sentences tr[data-pointer="${auth?.pointers[0]}"]`, { hasText: auth?.text.slice(0, 60) ?? "" })
    .first()
    .innerText();
  expect(authRow).toContain("generic/auth-401");
  expect(authRow).toContain(auth?.rules[0] as string);
  // The page holds no raw key, and loads nothing from elsewhere.
  expect(readFileSync(join(dir, "run.html"), "utf8")).not.toMatch(/service_[A-Za-z0-9]{20}/);
  expect(readFileSync(join(dir, "run.html"), "utf8")).not.toMatch(/<(script|link)\b|src="http/);
  if (process.env.CONFORMANCE_HTML_SCREENSHOT)
    await page.screenshot({ path: process.env.CONFORMANCE_HTML_SCREENSHOT, fullPage: true });
  await page.close();
}, 120_000);
