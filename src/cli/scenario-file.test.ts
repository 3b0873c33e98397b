/**
 * `serve --scenario FILE` and `serve --from-snapshot FILE`: every recipe of examples/ served from its file
 * holds what it promises; a file with problems stops the process with exit 2 before it listens, printing
 * each problem with its JSON path; a saved snapshot starts the same world again.
 */
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callJson, runKit, serveCli, startCli, stopCli } from "../../testing/cli.ts";
import { RECIPES } from "../../testing/recipes.ts";
import { tempDirForTests } from "../../testing/temp-dir.ts";
import type { Manifest } from "../core/world/manifest.ts";

const dir = tempDirForTests("scenario-file-");

describe.each(RECIPES)("serve --scenario examples/$file", (recipe) => {
  it("serves the recipe's world, which holds what it promises", async () => {
    const { run, base } = await serveCli([
      "--scenario",
      `examples/${recipe.file}`,
      "--clock",
      "manual",
      "--quiet",
    ]);
    const manifest = (await callJson(base, "GET", "/__sim/manifest", {})).body as Manifest;
    expect(run.stdout()).toContain(`Scenario     ${manifest.scenario} (seed 1)`);
    await recipe.check({
      manifest,
      call: (method, path, as, body) =>
        callJson(base, method, path, { authorization: `Bearer ${manifest.users[as]?.apiKey}` }, body),
      advance: async (ms) => {
        expect((await callJson(base, "POST", "/__sim/clock/advance", {}, { ms })).status).toBe(200);
      },
    });
    expect((await stopCli(run)).code).toBe(0);
  });
});

describe("a scenario file that cannot be served", () => {
  it.each([
    ["problems", JSON.stringify({ users: { a: { plan: "gold" } }, audiences: { x: { owner: "ghost" } } })],
    ["semantic problems", JSON.stringify({ audiences: { x: { owner: "ghost" } } })],
    ["no JSON", "{ users: "],
  ])("(%s) exits 2 before listening, naming every problem with its path", async (kind, text) => {
    const file = join(dir.path, `${kind.replace(/ /g, "-")}.json`);
    await writeFile(file, text);
    const run = startCli(["--scenario", file, "--port", "0"]);
    const { code } = await run.exit;
    expect(code).toBe(2);
    expect(run.stdout()).not.toContain("listening");
    if (kind === "problems") expect(run.stderr()).toContain("/users/a/plan: must be one of");
    if (kind === "semantic problems") expect(run.stderr()).toMatch(/\/audiences\/x\/owner: names no user/);
    if (kind === "no JSON") expect(run.stderr()).toContain("is not JSON");
  });

  it("exits 2 for a file that does not exist, and for --from-snapshot with --scenario", async () => {
    const missing = startCli(["--scenario", join(dir.path, "nope.json"), "--port", "0"]);
    expect((await missing.exit).code).toBe(2);
    expect(missing.stderr()).toContain("cannot be read");
    const both = startCli(["--scenario", "default", "--from-snapshot", "x.json", "--port", "0"]);
    expect((await both.exit).code).toBe(2);
    expect(both.stderr()).toContain("--from-snapshot starts from a saved world");
  });
});

describe("serve --scenario FILE --watch", () => {
  it("serves each saved edit within a second; an edit with problems is printed and the last world stays", async () => {
    const file = join(dir.path, "watched.json");
    const doc = (name: string, extra: object = {}) =>
      JSON.stringify({
        name,
        users: { dev: { plan: "premium", apiKeys: [{ key: "service_watchKey1" }] } },
        ...extra,
      });
    await writeFile(file, doc("first"));
    const { run, base } = await serveCli(["--scenario", file, "--watch", "--clock", "manual", "--quiet"]);
    const scenario = async () =>
      ((await callJson(base, "GET", "/__sim/manifest", {})).body as Manifest).scenario;
    const within = async (ms: number, done: () => Promise<boolean>) => {
      const until = Date.now() + ms;
      while (!(await done())) {
        if (Date.now() > until) return false;
        await new Promise((r) => setTimeout(r, 25));
      }
      return true;
    };
    expect(await scenario()).toBe("first");
    // Saved in place, then the way editors save: a new file renamed over the old one.
    await writeFile(file, doc("second"));
    expect(await within(1000, async () => (await scenario()) === "second")).toBe(true);
    await writeFile(`${file}.tmp`, doc("third"));
    await rename(`${file}.tmp`, file);
    expect(await within(1000, async () => (await scenario()) === "third")).toBe(true);
    expect(run.stdout()).toContain("serving scenario third (seed 1) afresh");
    // A reset naming no scenario makes the file's latest document, not the one the server started with.
    await callJson(base, "POST", "/__sim/reset", {}, {});
    expect(await scenario()).toBe("third");
    // An edit with problems: printed with their paths, and the world served stays the last good one.
    await writeFile(file, doc("fourth", { audiences: { a: { owner: "ghost" } }, colour: 1 }));
    expect(await within(1000, async () => run.stderr().includes("/audiences/a/owner: names no user"))).toBe(
      true,
    );
    expect(run.stderr()).toContain("watched.json has problems; still serving the last good world");
    expect(run.stderr()).toContain("  /colour: is not a field of the scenario format here");
    expect(await scenario()).toBe("third");
    await writeFile(file, "{ not json");
    expect(await within(1000, async () => run.stderr().includes("is not JSON"))).toBe(true);
    const me = await callJson(base, "GET", "/api/v1/auth/me", { authorization: "Bearer service_watchKey1" });
    expect(me.status).toBe(200);
    expect((await stopCli(run)).code).toBe(0);
  });
});

describe("serve --from-snapshot", () => {
  it("starts from a saved world on the clock it was saved on: the same snapshot bytes", async () => {
    const first = await serveCli([
      "--scenario",
      "examples/work-in-flight.json",
      "--clock",
      "manual",
      "--quiet",
    ]);
    const saved = await (await fetch(`${first.base}/__sim/snapshot`)).text();
    await stopCli(first.run);
    const file = join(dir.path, "world.snapshot.json");
    await writeFile(file, saved);
    expect(JSON.parse(saved).clock.mode).toBe("manual");
    // No --clock: the saved world's manual clock, its time and its jobs, not the default real one.
    const second = await serveCli(["--from-snapshot", file, "--quiet"]);
    expect(second.run.stdout()).toMatch(/Clock\s+manual/);
    await new Promise((r) => setTimeout(r, 30));
    expect(await (await fetch(`${second.base}/__sim/snapshot`)).text()).toBe(saved);
    // A reset keeps that clock too.
    await callJson(second.base, "POST", "/__sim/reset", {}, {});
    expect(JSON.parse(await (await fetch(`${second.base}/__sim/snapshot`)).text()).clock.mode).toBe("manual");
    await stopCli(second.run);
    // --clock given explicitly wins, and says so.
    const real = await serveCli(["--from-snapshot", file, "--clock", "real", "--quiet"]);
    expect(real.run.stderr()).toContain("the saved world ran on a manual clock; --clock real given");
    expect(real.run.stdout()).toMatch(/Clock\s+real/);
    expect(JSON.parse(await (await fetch(`${real.base}/__sim/snapshot`)).text()).clock.mode).toBe("real");
    await stopCli(real.run);
    // A snapshot edited into one the contract forbids: every problem printed at its pointer, exit 2.
    const edited = JSON.parse(saved);
    const audience = edited.state.tables.audiences[0][1];
    audience.name = 12345;
    audience.ownerId = "nobody";
    await writeFile(file, JSON.stringify(edited));
    const refused = startCli(["--from-snapshot", file, "--port", "0"]);
    expect((await refused.exit).code).toBe(2);
    expect(refused.stdout()).not.toContain("listening");
    expect(refused.stderr()).toContain("2 problems in its world");
    expect(refused.stderr()).toContain("  /state/tables/audiences/0/1/name: must be string\n");
    expect(refused.stderr()).toContain("  /state/tables/audiences/0/1/ownerId: names no user (nobody)\n");
    await writeFile(file, `${saved.slice(0, 100)}`);
    const broken = startCli(["--from-snapshot", file, "--port", "0"]);
    expect((await broken.exit).code).toBe(2);
    expect(broken.stderr()).toContain("is not a snapshot the simulator can load");
  });
});

describe("the conformance kit on a world from a file", () => {
  it("resets the simulator to the file (--scenario) and finds no violation", async () => {
    const { run, base } = await serveCli(["--clock", "manual", "--quiet"]);
    const args = ["--target", base, "--scenario", "examples/partner-staging.json", "--seed", "4"];
    const kit = runKit(args, join(dir.path, "reports"));
    expect(kit.status, kit.stdout + kit.stderr).toBe(0);
    expect(kit.stdout).toMatch(/description rules: +(\d+)\/\1 /);
    expect(kit.stdout).toContain("violations: 0");
    expect((await callJson(base, "GET", "/__sim/manifest", {})).body.scenario).toBe("partner-staging");
    // A recipe without the default scenario's handles is refused before anything runs (a CI job wired to
    // it would otherwise pass on the few checks left), naming what it lacks; the --skip it prints runs the
    // rest, which pass.
    for (const recipe of RECIPES.filter((r) => r.file !== "partner-staging.json")) {
      const args = ["--target", base, "--scenario", `examples/${recipe.file}`, "--seed", "4"];
      const refused = runKit(args, join(dir.path, "r"));
      expect(refused.status, recipe.file + refused.stdout + refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(
        /the simulator's world lacks handles that \d+ of the \d+ chosen checks need/,
      );
      expect(refused.stderr).toMatch(/^ {2}(keys|users|readable|changeable|plans)\.\S+: needed by /m);
      expect(refused.stdout).not.toMatch(/✓/);
      const skip = /--skip '([^']+)'/.exec(refused.stderr)?.[1] as string;
      const rest = runKit([...args, "--skip", skip], join(dir.path, "r"));
      expect(rest.status, recipe.file + rest.stdout + rest.stderr).toBe(0);
      expect(rest.stdout).toContain("violations: 0");
      expect(rest.stdout).toMatch(/\d+ checks: [1-9]\d* passed, 0 failed, 0 skipped/);
    }
    await stopCli(run);
  }, 150_000);
});

describe("worlds of one's own under --state-file", () => {
  it("survive SIGKILL: an inline reset, a sandbox from an inline scenario, a loaded snapshot", async () => {
    const state = join(dir.path, "state.json");
    const world = RECIPES.find((r) => r.file === "shared-viewer.json")?.document;
    let { run, base } = await serveCli(["--state-file", state, "--clock", "manual", "--quiet"]);
    const reset = await callJson(base, "POST", "/__sim/reset", {}, { scenario: world });
    expect(reset.status).toBe(200);
    const made = await callJson(base, "POST", "/__sim/sandboxes", {}, { scenario: world, seed: 9 });
    expect(made.status).toBe(201);
    const sb = made.body as { id: string; controlToken: string; manifest: Manifest };
    const owner = (m: Manifest) => ({ authorization: `Bearer ${m.users.owner?.apiKey}` });
    const sharedOf = (m: Manifest) => `/api/v1/audiences/${m.audiences.shared?.id}`;
    const renamed = await callJson(base, "PUT", sharedOf(sb.manifest), owner(sb.manifest), { name: "Kept" });
    expect(renamed.status).toBe(200);

    run.child.kill("SIGKILL");
    await run.exit;
    ({ run, base } = await serveCli(["--state-file", state, "--clock", "manual", "--quiet"]));
    expect((await callJson(base, "GET", "/__sim/manifest", {})).body).toEqual(reset.body);
    const again = await callJson(base, "GET", sharedOf(sb.manifest), owner(sb.manifest));
    expect(again.body.data.name).toBe("Kept");
    const listed = (await callJson(base, "GET", "/__sim/sandboxes", {})).body as {
      id: string;
      scenario: string;
    }[];
    expect(listed).toEqual([expect.objectContaining({ id: sb.id, scenario: "shared-viewer", seed: 9 })]);

    // A snapshot loaded into the default world is kept as the world it became.
    await callJson(base, "POST", "/__sim/reset", {}, { scenario: "new-free-account" });
    const saved = await (await fetch(`${base}/__sim/snapshot`)).text();
    await callJson(base, "POST", "/__sim/reset", {}, {});
    const loaded = await fetch(`${base}/__sim/snapshot`, { method: "PUT", body: saved });
    expect(loaded.status).toBe(200);
    run.child.kill("SIGKILL");
    await run.exit;
    ({ run, base } = await serveCli(["--state-file", state, "--clock", "manual", "--quiet"]));
    expect(await (await fetch(`${base}/__sim/snapshot`)).text()).toBe(saved);
    await stopCli(run);
  }, 120_000);
});
