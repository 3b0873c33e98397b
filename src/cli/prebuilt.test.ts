import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { serializeState } from "../core/persistence/snapshot.ts";
import { sha256Hex } from "../core/request/auth.ts";
import { DeferredMap } from "../core/world/deferred-map.ts";
import { DEFAULT_START, type Scenario } from "../core/world/scenario.ts";
import { keepTemplate, type Template, templateOf } from "../core/world/template.ts";
import { templateFromLines, templateText } from "../core/world/template-data.ts";
import { deferredMindMaker } from "../scenarios/builder.ts";
import { findScenario, scenarios } from "../scenarios/index.ts";
import { createSimulator } from "../simulator.ts";
import { keepPrebuilt, linesOfBytes, PREBUILT, prebuiltData, prebuiltText } from "./prebuilt.ts";

const dir = mkdtempSync(join(tmpdir(), "ars-prebuilt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A scenario the template cache has never seen: the same build under another identity. */
const twin = (scenario: Scenario): Scenario => ({ ...scenario });

const stillDeferred = (t: Template): number => (t.state.minds as DeferredMap<string, object>).deferred;

describe("worlds made when the package is built (src/cli/prebuilt.ts)", () => {
  it.each([
    ...scenarios.map((s) => [s.name, 1] as const),
    ["default", 7] as const,
  ])("%s at seed %i: the data, through its text, makes the template a build makes", (name, seed) => {
    const code = findScenario(name) as Scenario;
    // Kept as serve keeps it: the Minds made so far are frozen then (deferred ones as they are made).
    const read = templateFromLines(
      linesOfBytes(Buffer.from(templateText(prebuiltData(name, seed)), "latin1")),
      deferredMindMaker,
      (table) => {
        throw new Error(`table ${table} asked of the rescue`);
      },
    );
    expect([read.scenario, read.seed, read.startTime]).toEqual([name, seed, DEFAULT_START]);
    const back = keepTemplate(twin(code), seed, DEFAULT_START, read.template);
    const fresh = templateOf(twin(code), seed, DEFAULT_START);
    expect(back.state.minds).toBeInstanceOf(DeferredMap);
    expect(stillDeferred(back)).toBe(stillDeferred(fresh));
    expect(back.manifest).toEqual(fresh.manifest);
    expect(back.keys).toEqual(fresh.keys);
    // Shipped hashes are the keys' own: a world made from them authenticates its users.
    expect([...(back.hashes ?? [])]).toEqual(back.keys.map(({ raw }) => [raw, sha256Hex(raw)]));
    // Every table, every deferred Mind made (reading them all makes them), in the same order.
    expect(JSON.stringify(serializeState(back.state))).toBe(JSON.stringify(serializeState(fresh.state)));
    expect(
      [...back.state.minds.values()].every((m) => Object.isFrozen(m) && Object.isFrozen(m.training)),
    ).toBe(true);
  });

  it("makes ahead what serve builds with no options: the default scenario at its default seed", () => {
    expect(PREBUILT).toEqual([{ scenario: "default", seed: 1 }]);
  });

  it("hands serve the file a build wrote, and the world served is the world built", async () => {
    const text = prebuiltText("default", 1);
    expect(text).toMatch(/^[\x20-\x7e\n]*$/);
    expect(text).toContain("Krak\\u00f3w");
    writeFileSync(join(dir, "default-1.json"), text);
    const code = findScenario("default") as Scenario;
    expect(keepPrebuilt("default", null, pathToFileURL(`${dir}/`))).toBe(true);
    const kept = templateOf(code, 1, DEFAULT_START);
    expect(stillDeferred(kept)).toBe(5300);
    const served = createSimulator({ clock: "manual" });
    const built = createSimulator({ clock: "manual", scenario: twin(code) });
    await Promise.all([served.ready, built.ready]);
    expect(templateOf(code, 1, DEFAULT_START)).toBe(kept);
    expect(JSON.stringify(served.snapshot())).toBe(JSON.stringify(built.snapshot()));
  });

  it("reads a table when a world first reads it, and builds one it cannot read", async () => {
    const lines = prebuiltText("default", 1).split("\n");
    const tables = JSON.parse(lines[0] as string).tables as string[];
    const audiences = tables.indexOf("audiences") + 1;
    // The same length, so only parsing it finds it out.
    lines[audiences] = `[${"x".repeat((lines[audiences] as string).length - 2)}]`;
    writeFileSync(join(dir, "default-1.json"), lines.join("\n"));
    const code = findScenario("default") as Scenario;
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(keepPrebuilt("default", null, pathToFileURL(`${dir}/`))).toBe(true);
      expect(stderr).not.toHaveBeenCalled();
      const served = createSimulator({ clock: "manual" });
      const built = createSimulator({ clock: "manual", scenario: twin(code) });
      await Promise.all([served.ready, built.ready]);
      expect(JSON.stringify(served.snapshot())).toBe(JSON.stringify(built.snapshot()));
      expect(stderr).toHaveBeenCalledTimes(1);
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(/table audiences passed over .*building the world/);
    } finally {
      stderr.mockRestore();
    }
  });

  it("passes over another seed or scenario, a missing file, and a file that is not such a template", () => {
    const here = pathToFileURL(`${dir}/`);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(keepPrebuilt("default", 2, here)).toBe(false);
      expect(keepPrebuilt("at-limits", null, here)).toBe(false);
      expect(keepPrebuilt("default", 1, pathToFileURL(`${dir}/nowhere/`))).toBe(false);
      expect(stderr).not.toHaveBeenCalled();
      writeFileSync(join(dir, "default-1.json"), '{"format":"something else"}');
      expect(keepPrebuilt("default", 1, here)).toBe(false);
      writeFileSync(join(dir, "default-1.json"), "{not json");
      expect(keepPrebuilt("default", 1, here)).toBe(false);
      // A table line missing: the tables are not the lines that follow the first.
      writeFileSync(join(dir, "default-1.json"), prebuiltText("default", 1).replace(/\n[^\n]*$/, ""));
      expect(keepPrebuilt("default", 1, here)).toBe(false);
      expect(stderr).toHaveBeenCalledTimes(3);
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(/passed over .*building the world/);
    } finally {
      stderr.mockRestore();
    }
  });
});
