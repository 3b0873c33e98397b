import { describe, expect, it } from "vitest";
import { paint } from "../lib/reporting/colour.ts";

describe("colour in the terminal report", () => {
  it.each([
    ["a terminal", { isTTY: true }, {}, true],
    ["a pipe or a file", { isTTY: false }, {}, false],
    ["a terminal under NO_COLOR", { isTTY: true }, { NO_COLOR: "1" }, false],
    ["a pipe under FORCE_COLOR", {}, { FORCE_COLOR: "1" }, true],
    ["FORCE_COLOR=0 on a pipe", {}, { FORCE_COLOR: "0" }, false],
    ["FORCE_COLOR over NO_COLOR", {}, { FORCE_COLOR: "1", NO_COLOR: "1" }, true],
  ] as const)("on %s: %s", (_what, stream, env, coloured) => {
    const p = paint(stream, env);
    expect(p.ok("✓")).toBe(coloured ? "\u001b[32m✓\u001b[39m" : "✓");
    expect(p.bad("✗").includes("\u001b[31m")).toBe(coloured);
    expect(p.skip("↓").includes("\u001b[33m")).toBe(coloured);
  });
});
