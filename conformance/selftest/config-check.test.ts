/**
 * The config checker names every problem of a config in one pass, each with its JSON pointer: an unknown
 * property by name, a handle where an ID belongs and an ID where a handle belongs, a role without a key.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSimulator } from "../../src/simulator.ts";
import { allChecks } from "../checks/index.ts";
import { ConfigError, discover, loadConfig } from "../lib/http/target.ts";
import { configOf } from "../lib/planning/config-of.ts";
import { lackingNeeds } from "../lib/running/runner.ts";
import { serveBroken } from "./harness.ts";

const dir = mkdtempSync(join(tmpdir(), "kit-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const example = JSON.parse(readFileSync(new URL("../example.config.json", import.meta.url), "utf8"));
const env = Object.fromEntries(
  Object.values(example.keys as Record<string, string>).map((v) => [v.slice(1), "service_example"]),
);

function problemsOf(config: unknown): string[] {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  try {
    loadConfig(file, env);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.message
      .split("\n")
      .slice(1)
      .map((l) => l.trim());
  }
}

describe("the config checker", () => {
  it("passes the shipped example, which names what every check needs of the default world", async () => {
    expect(problemsOf(example)).toEqual([]);
    // The default world's IDs, as a backend team's config for it would hold them.
    const sim = createSimulator({ clock: "manual" });
    await sim.ready;
    const of = configOf(sim.manifest(), example.baseUrl) as typeof example;
    for (const field of ["users", "plans", "readable", "changeable", "prices"])
      expect(example[field], field).toEqual(of[field]);
    // Pointed at that world, nothing the checks need is missing: the kit would run it, not refuse it.
    const server = await serveBroken(sim, null, "host");
    try {
      const keys = Object.fromEntries(
        Object.entries(sim.manifest().users).map(([h, u]) => [example.keys[h].slice(1), u.apiKey]),
      );
      Object.assign(process.env, keys);
      const info = await discover({
        target: server.url,
        config: new URL("../example.config.json", import.meta.url).pathname,
        seed: 1,
        runs: null,
        readOnly: false,
        noReset: true,
        controlToken: null,
        deep: false,
        runId: "config-check",
      });
      expect(info.kind).toBe("deployment");
      expect([...lackingNeeds(allChecks, info)]).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("names every problem at once, each at its JSON pointer", () => {
    const bad = structuredClone(example);
    bad.readabel = {};
    bad.changeable.audiences.main = "main";
    bad.readable.formations.mainReady.audience = example.readable.audiences.main;
    bad.consumable = { collaborator: { audience: "nowhere", role: "solo" } };
    bad.keys.ownr = "service_x";
    delete bad.keys.solo;
    const problems = problemsOf(bad);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/readabel: unknown property "readabel"; known: .*readable/),
        "/changeable/audiences/main: must be an ID (a UUID), not a handle or a name",
        expect.stringMatching(
          /^\/readable\/formations\/mainReady\/audience: "ac99209e-[^"]+" is an ID; a handle belongs here \(one of: main, private, [^)]+\)$/,
        ),
        expect.stringMatching(/^\/consumable\/collaborator\/audience: "nowhere" names no Audience/),
        expect.stringMatching(/^\/consumable\/collaborator\/role: "solo" has no key in keys/),
        expect.stringMatching(/^\/keys\/ownr: "ownr" is not a known name: "owner", "teammate"/),
      ]),
    );
    expect(problems).toHaveLength(6);
  });
});
