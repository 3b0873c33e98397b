import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dashboardScriptModule, GENERATED } from "../../../../scripts/generate-dashboard.ts";
import { DASHBOARD_HTML } from "./page.ts";
import { DASHBOARD_SCRIPT } from "./script.gen.ts";

describe("the dashboard's script", () => {
  it("is what `npm run generate:dashboard` makes of browser.ts now", () => {
    expect(readFileSync(GENERATED, "utf8"), "run `npm run generate:dashboard`").toBe(dashboardScriptModule());
  });

  it("is plain JavaScript, its names its own, whole inside the page", () => {
    expect(DASHBOARD_SCRIPT).toMatch(/^\(\(\) => \{/);
    expect(DASHBOARD_SCRIPT).not.toMatch(/\bimport\b|\bexport\b|: (string|number|HTMLElement)\b/);
    expect(DASHBOARD_HTML).toContain(`<script>${DASHBOARD_SCRIPT}</script>`);
  });
});
