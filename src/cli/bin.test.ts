/**
 * The one program, `audience-research-sim`: its commands run the bundles (dist/), so it needs no TypeScript
 * loader and no test framework; `conformance` checks a running simulator end to end.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale } from "../../scripts/build.ts";
import { ROOT } from "../../testing/cli.ts";
import { startServer } from "../node/server.ts";
import { createSimulator } from "../simulator.ts";

const BIN = join(ROOT, "bin/audience-research-sim.cjs");

function run(
  args: string[],
  nodeArgs: string[] = [],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (err += b));
    child.on("close", (code) => done({ code, out, err }));
  });
}

describe("audience-research-sim", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    await buildIfStale();
    server = await startServer(createSimulator({ clock: "manual" }), { port: 0, host: "127.0.0.1" });
  }, 120_000);
  afterAll(() => server.close());

  it("names its commands, its version, and refuses an unknown command with 2", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/serve .*\n.*conformance /);
    const version = await run(["--version"]);
    expect(version.out.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const deploy = await run(["deploy"]);
    expect(deploy.code).toBe(2);
    expect(deploy.err).toMatch(/^audience-research-sim: unknown command "deploy"\n/);
    const typo = await run(["conformnce"]);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(
      /^audience-research-sim: unknown command "conformnce": did you mean conformance\?\n/,
    );
    expect((await run([])).code).toBe(2);
  });

  it("says in one line that an older Node will not do, before any bundle is loaded", async () => {
    // This Node made to report an old version: the check must come before the bundles, which need Node 22's
    // node:module exports and would otherwise die with a SyntaxError about them.
    const old = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.11.1"})`;
    for (const command of ["serve", "conformance", "proxy"]) {
      const r = await run([command, "--port", "0"], ["--import", old]);
      expect(r.code).toBe(2);
      expect(r.err).toBe("audience-research-sim needs Node 22 or newer; this is v20.11.1\n");
      expect(r.out).toBe("");
    }
  });

  it("gives each command's own --help", async () => {
    expect((await run(["serve", "--help"])).out).toContain("Usage: audience-research-sim serve [options]");
    expect((await run(["conformance", "--help"])).out).toContain("Usage: audience-research-sim conformance");
    expect((await run(["capture", "--help"])).out).toContain("Usage: audience-research-sim capture");
  });

  it("runs the conformance kit from its bundle against a simulator", async () => {
    const r = await run([
      "conformance",
      "--target",
      server.url,
      "--seed",
      "3",
      "-t",
      "^(generic/auth-401|domain/identity):",
    ]);
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    expect(r.out).toContain("2 checks: 2 passed, 0 failed, 0 skipped (seed 3)");
  }, 120_000);
});
