/**
 * The kit's command line, run as a user runs it (a child process against a server): exit codes, the JUnit
 * file where the user asked for it, stable names, a replay, a shard coverage merge, and bad usage.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openapi as contract } from "../../src/contract/document.ts";
import { FAULTS } from "./faults.ts";
import { type BrokenServer, brokenServer, deploymentServer } from "./harness.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = join(ROOT, "conformance/cli.ts");
// The loader by path: the CLI runs from a directory of its own, where no node_modules has tsx.
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const dir = mkdtempSync(join(tmpdir(), "conformance-cli-"));

/**
 * The CLI through tsx (as `npm run conformance` runs it), from `dir`. Asynchronous: the servers it talks to
 * live in this process, whose event loop must keep turning.
 */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", TSX, CLI, ...args], {
      cwd: dir,
      env: { ...process.env, CONFORMANCE_SHRINK_MS: "500", ...env },
    });
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    child.on("close", (code) => done({ code, out }));
  });
}

/** A run of the checks matching `only` against `server`, seed 4. */
const check = (server: BrokenServer, only: string, ...more: string[]) =>
  cli(["--target", server.info.baseUrl, "--seed", "4", "-t", only, ...more]);

let clean: BrokenServer;
let broken: BrokenServer;
beforeAll(async () => {
  clean = await brokenServer(null, 21);
  const fault = FAULTS.find((f) => f.name === "a deleted key keeps working under /v1");
  broken = await brokenServer(fault?.fault ?? null, 21);
});
afterAll(async () => {
  await clean.close();
  await broken.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the conformance command line", () => {
  it("spends at most its budget: once --budget requests are sent no further check starts", async () => {
    const only = "^(domain/identity|domain/checkout|generic/auth-401):";
    const r = await check(clean, only, "--budget", "1");
    // The first check runs whole (and says what it spent); the others are skipped, naming the budget; with
    // two of three skipped the run is no pass: exit 3, saying why.
    expect(r.out).toMatch(/✓ \S+ \(\d+ ms, [1-9]\d* requests?/);
    expect(r.out).toMatch(/3 checks: 1 passed, 0 failed, 2 skipped/);
    expect(r.out).toContain("request budget (--budget 1) is spent");
    expect(r.out).toContain("incomplete: 2 of the 3 checks it was to run were skipped (more than half)");
    expect(r.code, r.out).toBe(3);
    const timed = await check(clean, only, "--time-budget", "1ms");
    expect(timed.out).toMatch(/time budget \(--time-budget 0s\) is spent/);
    const bad = await check(clean, only, "--time-budget", "soon");
    expect(bad.code).toBe(2);
    expect(bad.out).toContain("--time-budget must be a duration");
  });

  it("exits 0 on the clean simulator, writes JUnit where asked, with names free of the seed", async () => {
    const r = await check(
      clean,
      "^(domain/identity|stateful/world):",
      "--reporter",
      "junit=out/j.xml",
      "--reporter",
      "json=out/r.json",
      "--reporter",
      "dot",
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/2 checks: 2 passed, 0 failed, 0 skipped \(seed 4\)/);
    const xml = readFileSync(join(dir, "out/j.xml"), "utf8");
    expect(xml).toContain('name="stateful/world: ');
    expect(xml).not.toMatch(/seed 4/);
    const json = JSON.parse(readFileSync(join(dir, "out/r.json"), "utf8")) as {
      checks: { name: string; status: string }[];
    };
    expect(json.checks.map((c) => `${c.name} ${c.status}`)).toEqual([
      "domain/identity passed",
      "stateful/world passed",
    ]);
    // `dot`: a character per check instead of a line.
    expect(r.out).toMatch(/^\.\.$/m);
    expect(existsSync(join(dir, "reports/conformance-coverage.json"))).toBe(true);
    expect(r.out.includes("\u001b[")).toBe(false);
    // FORCE_COLOR asks for colour where there is no terminal; NO_COLOR alone keeps it off.
    const only = ["--target", clean.info.baseUrl, "--seed", "4", "-t", "^domain/identity:"];
    expect((await cli(only, { FORCE_COLOR: "1" })).out).toContain("\u001b[32m✓\u001b[39m domain/identity");
    expect((await cli(only, { NO_COLOR: "1" })).out.includes("\u001b[")).toBe(false);
  });

  it("exits 1 on a broken server, saves the sequence, and replays it: 1 there, 0 on the clean one", async () => {
    const r = await check(broken, "^stateful/world:");
    expect(r.code, r.out).toBe(1);
    // Said the moment it was found, with how to replay it, before the check shrank it and ended.
    const found = r.out.indexOf("! found by stateful/world: ");
    expect(found, r.out).toBeGreaterThan(-1);
    expect(found).toBeLessThan(r.out.indexOf("✗ stateful/world"));
    expect(r.out).toContain("(replay: --seed 4 --only '^stateful/world:')");
    // A shrinking budget that runs out is said, not passed off as the shortest sequence.
    const cut = await cli(["--target", broken.info.baseUrl, "--seed", "4", "-t", "^stateful/world:"], {
      CONFORMANCE_SHRINK_MS: "1",
    });
    expect(cut.code, cut.out).toBe(1);
    expect(cut.out).toMatch(
      /shrinking stopped at its budget \(0\.001 s, 3000 requests\): a shorter sequence may exist/,
    );
    expect(r.out).toContain("replay the sequence: --replay reports/sequence-stateful-world-4.json");
    expect(
      (await cli(["--target", broken.info.baseUrl, "--replay", "reports/sequence-stateful-world-4.json"]))
        .code,
    ).toBe(1);
    expect(
      (await cli(["--target", clean.info.baseUrl, "--replay", "reports/sequence-stateful-world-4.json"]))
        .code,
    ).toBe(0);
  });

  it("prints replay hints that replay: a response rule's names the check whose request met it", async () => {
    // auth/me answers 500: found by the response rule no-5xx, which is judged on every answer.
    const failing = await brokenServer(async (req, next) =>
      new URL(req.url).pathname.endsWith("/auth/me")
        ? new Response('{"error":{"message":"boom"}}', {
            status: 500,
            headers: { "content-type": "application/json" },
          })
        : next(req),
    );
    try {
      const r = await check(failing, "^domain/identity:");
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain("! found by response/no-5xx: ");
      // Every hint printed, on the line found and in the failure's account, run as printed.
      const hints = [...r.out.matchAll(/replay: --seed (\d+) --only '([^']+)'/g)];
      expect(hints.length, r.out).toBeGreaterThanOrEqual(2);
      for (const [, seed, only] of new Map(hints.map((h) => [h[0], h])).values()) {
        expect(only).not.toMatch(/^\^response\//);
        const again = await cli([
          "--target",
          failing.info.baseUrl,
          "--seed",
          String(seed),
          "--only",
          String(only),
        ]);
        expect(again.code, again.out).toBe(1);
        expect(again.out).toContain("response/no-5xx");
      }
    } finally {
      await failing.close();
    }
  });

  it("init writes a config that runs from a simulator, and one that says what to fill in from a deployment", async () => {
    const made = await cli(["init", "--target", clean.info.baseUrl, "--out", "init.json"]);
    expect(made.code, made.out).toBe(0);
    expect(made.out).toContain("wrote init.json from the simulator's manifest; run it with:");
    const run = await cli(["--config", "init.json", "--seed", "4", "--only", "^domain/identity:"]);
    expect(run.code, run.out).toBe(0);
    expect((await cli(["init", "--target", clean.info.baseUrl, "--out", "init.json"])).code).toBe(2);
    // A deployment: no manifest without the control token.
    const staging = await deploymentServer(null, "host", { deep: false });
    try {
      const todo = await cli(["init", "--target", staging.info.baseUrl, "--out", "todo.json"]);
      expect(todo.code, todo.out).toBe(0);
      expect(todo.out).toContain("wrote todo.json; fill in what the checker names below");
      expect(todo.out).toMatch(/\/readable\/audiences\/main: must be an ID/);
      expect(todo.out).toMatch(/\/changeable\/audiences\/atCap: must be an ID/);
      const config = JSON.parse(readFileSync(join(dir, "todo.json"), "utf8"));
      expect(config.readable.audiences.main).toMatch(/^<ID of an Audience of the owner's/);
      expect(config.keys.owner).toBe("$CONFORMANCE_KEY_OWNER");
    } finally {
      await staging.close();
    }
  });

  it("joins shard coverage reports", async () => {
    for (const shard of ["1/2", "2/2"]) {
      const r = await check(clean, "^generic/(auth|v1)", "--shard", shard);
      expect(r.code, r.out).toBe(0);
      copyFileSync(join(dir, "reports/conformance-coverage.json"), join(dir, `c${shard[0]}.json`));
    }
    const merged = await cli(["--merge-coverage", "c1.json", "--merge-coverage", "c2.json"]);
    expect(merged.code, merged.out).toBe(0);
    expect(merged.out).toContain("merged 2 report(s)");
  });

  it("checks against another version of the contract with --contract (a file or a URL)", async () => {
    // That version documents no 404 for deleting an API key and has no follow operations.
    const other = structuredClone(contract) as unknown as {
      paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
    };
    for (const item of Object.values(other.paths))
      for (const op of Object.values(item))
        if (op?.operationId === "deleteApiKey") delete op.responses?.["404"];
    for (const path of Object.keys(other.paths)) if (path.endsWith("/follow")) delete other.paths[path];
    writeFileSync(join(dir, "other.json"), JSON.stringify(other));
    const only = "^(domain/api-key-access|domain/follow):";
    const r = await check(clean, only, "--contract", "other.json");
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain("deleteApiKey does not document status 404");
    expect(r.out).toContain("[skipped: the contract has no operation followAudience, unfollowAudience]");
    expect((await check(clean, only, "--contract", `${clean.info.baseUrl}/_openapi.json`)).code).toBe(0);
    expect((await check(clean, only, "--contract", "missing.json")).code).toBe(2);
  });

  it("never goes green on a run that checked nothing: exit 3, and --skip and --only choose the run's whole", async () => {
    const none = await check(clean, "^no-such-check$");
    expect(none.code, none.out).toBe(3);
    expect(none.out).toContain("0 checks: 0 passed, 0 failed, 0 skipped");
    expect(none.out).toContain("incomplete: no check was chosen");
    // What the user leaves out does not count against the run.
    const some = await cli([
      ...["--target", clean.info.baseUrl, "--seed", "4"],
      ...["--only", "^(domain/identity|generic/auth-401):", "--skip", "^generic/"],
    ]);
    expect(some.code, some.out).toBe(0);
    expect(some.out).toMatch(/1 checks: 1 passed, 0 failed, 0 skipped/);
    // Nor do the skips it asked for: a read-only run of checks that all change state checked nothing.
    const readOnly = await check(clean, "^domain/(api-key-access|api-key-self-delete):", "--read-only");
    expect(readOnly.code, readOnly.out).toBe(3);
    expect(readOnly.out).toContain("every chosen check was skipped at the user's request");
    expect((await check(clean, "^domain/identity:", "--skip", "(")).code).toBe(2);
  });

  it("refuses a config that lacks what the chosen checks need, naming it, before anything runs", async () => {
    const { configOf } = await import("../lib/planning/config-of.ts");
    const manifest = await (await fetch(`${clean.info.baseUrl}/__sim/manifest`)).json();
    const config = configOf(manifest, clean.info.baseUrl) as { keys: Record<string, string> };
    delete config.keys.outsider;
    writeFileSync(join(dir, "thin.json"), JSON.stringify(config));
    const only = "^(domain/identity|domain/api-key-access|generic/hidden-existence-reads):";
    const r = await cli(["--config", "thin.json", "--seed", "4", "--only", only]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain("the config lacks fields that 2 of the 3 chosen checks need");
    const line = / {2}keys\.outsider: needed by (.*)\n/.exec(r.out)?.[1]?.split(", ");
    expect(line?.sort()).toEqual(["domain/api-key-access", "generic/hidden-existence-reads"]);
    expect(r.out).not.toMatch(/✓|passed/);
    const skip = /--skip '([^']+)'/.exec(r.out)?.[1] as string;
    const rest = await cli(["--config", "thin.json", "--seed", "4", "--only", only, "--skip", skip]);
    expect(rest.code, rest.out).toBe(0);
    expect(rest.out).toMatch(/1 checks: 1 passed, 0 failed, 0 skipped/);
  });

  it("stops at a target that stops answering: said once, exit 2, the reports hold what was checked", async () => {
    // A proxy in front of the clean simulator that serves 30 requests, then closes every connection and
    // stops listening, as a crashed deployment does.
    let served = 0;
    const upstream = new URL(clean.info.baseUrl);
    const proxy = createServer((req, res) => {
      if (++served > 30) {
        proxy.close();
        proxy.closeAllConnections();
        return;
      }
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const { port } = proxy.address() as AddressInfo;
    const started = Date.now();
    const only =
      "^(domain/identity|generic/valid-reads|domain/api-key-access|domain/members|domain/checkout):";
    const r = await cli([
      "--target",
      `http://127.0.0.1:${port}`,
      "--seed",
      "4",
      "--only",
      only,
      "--json",
      "out/down.json",
    ]);
    expect(r.code, r.out).toBe(2);
    const stopped = r.out.split("\n").filter((l) => l.startsWith("stopped:"));
    expect(stopped, r.out).toHaveLength(1);
    expect(stopped[0]).toMatch(
      /^stopped: the target stopped answering during [a-z/-]+ \(\w+ http:\/\/127\.0\.0\.1:\d+\S* failed \(.+\), and so did GET .*\); [1-9]\d* checks? (was|were) not run, and the reports hold what was checked \(exit 2\)$/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    const report = JSON.parse(readFileSync(join(dir, "out/down.json"), "utf8")) as {
      checks: { status: string }[];
    };
    expect(report.checks.map((c) => c.status)).toContain("passed");
    proxy.closeAllConnections();
  });

  it("exits 2 on bad usage and on an unreachable target", async () => {
    expect((await cli(["--target", "ftp://x"])).code).toBe(2);
    const typo = await cli(["--tagret", "http://127.0.0.1:9"]);
    expect(typo.code).toBe(2);
    expect(typo.out).toContain("conformance: unknown option --tagret: did you mean --target?");
    expect((await cli(["--target", clean.info.baseUrl, "--reporter", "tap"])).code).toBe(2);
    expect((await cli(["--target", "http://127.0.0.1:9"])).code).toBe(2);
  });
});
