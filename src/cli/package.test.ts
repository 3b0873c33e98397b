/**
 * The package as a team installs it: `npm pack`, then `npm install --omit=dev` of the tarball in an empty
 * directory, with nothing of this repository on the way. From there the program serves and checks, plain
 * Node imports `.` and `./msw`, and a strict TypeScript project type-checks against the declarations.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT } from "../../testing/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "ars-consumer-"));
const children: ChildProcess[] = [];

function run(
  cmd: string,
  args: string[],
  cwd = dir,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env } });
    children.push(child);
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    child.on("close", (code) => done({ code, out }));
  });
}

const node = (args: string[], runtime = process.execPath) => run(runtime, args);

/** Asks `url` until something answers (a server still starting refuses the connection). */
async function answered(url: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  throw new Error(`nothing answered at ${url}`);
}
const bin = join(dir, "node_modules/.bin/audience-research-sim");

/**
 * The Nodes the installed package runs on: this one (24), and Node 22 when ARS_NODE22 names its binary
 * (`.ci/run` sets it from scripts/fetch-node.sh).
 */
const RUNTIMES: [string, string][] = [[`Node ${process.versions.node}`, process.execPath]];
if (process.env.ARS_NODE22) RUNTIMES.push(["Node 22", process.env.ARS_NODE22]);
else console.warn("package.test: ARS_NODE22 is not set; the installed package is run on this Node only");

describe("the installed package", () => {
  beforeAll(async () => {
    const packed = await run("npm", ["pack", "--pack-destination", dir, "--silent"], ROOT);
    expect(packed.code, packed.out).toBe(0);
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz")) as string;
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "consumer", version: "1.0.0", type: "module" }),
    );
    const installed = await run("npm", [
      "install",
      "--omit=dev",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      `./${tarball}`,
    ]);
    expect(installed.code, installed.out).toBe(0);
  }, 300_000);
  afterAll(() => {
    // Each background server is npx and the bin it started: the whole process group goes, or the bin would
    // outlive the test (it did: servers left on ports 4010, 4011 and 4020 after every run).
    for (const c of children) {
      try {
        if (c.pid !== undefined) process.kill(-c.pid, "SIGKILL");
      } catch {
        c.kill("SIGKILL");
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs in at most 25 MB of disk, dependencies included, with no source map", async () => {
    // Disk usage, not the files' sum: what a CI cache or an image layer pays.
    const kib = Number((await run("du", ["-sk", "node_modules"])).out.split("\t")[0]);
    console.info(`package.test: production install takes ${((kib * 1024) / 1e6).toFixed(1)} MB`);
    expect(kib * 1024).toBeGreaterThan(5e6);
    expect(kib * 1024).toBeLessThanOrEqual(25e6);
    const maps = (await run("find", ["node_modules/audience-research-sim", "-name", "*.map"])).out.trim();
    expect(maps).toBe("");
    // pdf-lib comes vendored (dist/vendor/, with its licences), not as a dependency.
    expect(existsSync(join(dir, "node_modules/pdf-lib"))).toBe(false);
    expect(
      readFileSync(join(dir, "node_modules/audience-research-sim/dist/vendor/pdf-lib.LICENSES.txt"), "utf8"),
    ).toMatch(/MIT License/);
  });

  it("ships the scenario schema where README's $schema line points", async () => {
    // Editors resolve "$schema" as a path, not through the package's exports: the file must be there.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const shown = /"\$schema": "(\.\/node_modules\/audience-research-sim\/[^"]+)"/.exec(readme)?.[1];
    expect(shown, "README shows a $schema path into the installed package").toBeDefined();
    const schema = JSON.parse(readFileSync(join(dir, shown as string), "utf8"));
    expect(schema.title).toBe("ScenarioDocument");
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz")) as string;
    const listed = (await run("tar", ["-tzf", tarball])).out.split("\n");
    expect(listed).toContain(
      `package/${(shown as string).replace("./node_modules/audience-research-sim/", "")}`,
    );
  });

  it("holds no test and no TypeScript source, and installs without the API reference's dependency tree", async () => {
    const listed = (await run("npm", ["ls", "--all", "--parseable", "--omit=dev"])).out;
    expect(listed).not.toMatch(/@scalar\/api-reference/);
    const files = (await run("find", ["node_modules/audience-research-sim", "-type", "f"])).out.split("\n");
    expect(
      files.filter(
        (f) =>
          /\.test\.|\/src\/.*\.ts$|\/conformance\/(?!example\.config\.json$)/.test(f) && !f.endsWith(".d.ts"),
      ),
    ).toEqual([]);
    // What users copy ships: the example config the kit's help names.
    expect(files).toContain("node_modules/audience-research-sim/conformance/example.config.json");
  });

  it("runs every command of the README as printed, in order, names only paths the package has, and init then a run pass against a sandbox too", async () => {
    const readme = readFileSync(join(dir, "node_modules/audience-research-sim/README.md"), "utf8");
    // Every link is a URL or a file of the package; every path into the installed package is there.
    const links = [...readme.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1] as string);
    const missing = links.filter(
      (l) => !/^https?:/.test(l) && !existsSync(join(dir, "node_modules/audience-research-sim", l)),
    );
    const installedPaths = [...readme.matchAll(/`(node_modules\/audience-research-sim\/[^`\s]+)`/g)].map(
      (m) => m[1] as string,
    );
    missing.push(...installedPaths.filter((p) => !existsSync(join(dir, p))));
    expect(missing).toEqual([]);
    // The commands, block by block. The install is the one this test made (the packed package); a server
    // (serve, proxy) runs in the background until its port answers, as a second terminal would hold it.
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());
    expect(blocks.length).toBeGreaterThan(8);
    // Every curl of it must get a 2xx, as a person reading the answers would want.
    const home = mkdtempSync(join(tmpdir(), "ars-readme-home-"));
    writeFileSync(join(home, ".curlrc"), "fail-with-body\nsilent\nshow-error\n");
    const env = { HOME: home, npm_config_update_notifier: "false" };
    for (const block of blocks) {
      const script = block.replace(/^npm install --save-dev audience-research-sim$/m, "");
      const server = /^npx audience-research-sim (serve|proxy)\b.*?(?:--port (\d+))?$/.exec(script);
      if (server && !script.includes("\n")) {
        children.push(
          spawn("bash", ["-c", `exec ${script}`], {
            cwd: dir,
            env: { ...process.env, ...env },
            stdio: "ignore",
            detached: true,
          }),
        );
        const port = server[2] ?? (server[1] === "serve" ? "4010" : "4020");
        await answered(`http://127.0.0.1:${port}/_openapi.json`);
        continue;
      }
      const r = await run("bash", ["-e", "-o", "pipefail", "-c", script], dir, env);
      expect(r.code, `${script}\n---\n${r.out.slice(-3000)}`).toBe(0);
    }
    // The same two steps against a sandbox of that simulator: init from its manifest, then a quick run.
    const made = await fetch("http://127.0.0.1:4010/__sim/sandboxes", { method: "POST", body: "{}" });
    expect(made.status).toBe(201);
    const { id, controlToken } = (await made.json()) as { id: string; controlToken: string };
    const init = await run(
      process.execPath,
      [
        bin,
        "conformance",
        "init",
        "--target",
        "http://127.0.0.1:4010",
        "--sandbox",
        id,
        "--control-token",
        controlToken,
        "--out",
        "sandbox.json",
      ],
      dir,
      env,
    );
    expect(init.code, init.out).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "sandbox.json"), "utf8")).keys.owner).toMatch(/^service_sbx_/);
    const sandboxRun = await run(
      process.execPath,
      [bin, "conformance", "--config", "sandbox.json"],
      dir,
      env,
    );
    expect(sandboxRun.code, sandboxRun.out.slice(-3000)).toBe(0);
    rmSync(home, { recursive: true, force: true });
  }, 300_000);

  it("keeps V8's code for the simulator after a first start, as the Dockerfile's warm-up step does", async () => {
    const cache = join(dir, "node_modules/audience-research-sim/dist/.compile-cache");
    rmSync(cache, { recursive: true, force: true });
    // The Dockerfile's step: `timeout -s TERM 3 node …/audience-research-sim serve --port 4099 --quiet`, and
    // one request while it runs.
    const port = await freePort();
    const serve = (seconds: string) =>
      run("timeout", [
        "-s",
        "TERM",
        seconds,
        process.execPath,
        bin,
        "serve",
        "--port",
        String(port),
        "--quiet",
      ]);
    const warm = serve("3");
    await answered(`http://127.0.0.1:${port}/api/v1/auth/me`);
    expect((await warm).code).toBe(124);
    // And the world the build made ahead is in the package (src/cli/prebuilt.ts).
    expect(existsSync(join(dir, "node_modules/audience-research-sim/dist/templates/default-1.json"))).toBe(
      true,
    );
    const kept = readdirSync(cache).filter((f) => /^cli-[0-9a-f]+-[0-9a-f]+\.v8$/.test(f));
    expect(kept).toHaveLength(1);
    // The next start takes the code: V8 accepted it, so nothing is saved again.
    const file = join(cache, kept[0] as string);
    const before = statSync(file).mtimeMs;
    const next = serve("1");
    await answered(`http://127.0.0.1:${port}/api/v1/auth/me`);
    await next;
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it.each(
    RUNTIMES,
  )("on %s: npx finds the program, which answers --help and --version", async (_, runtime) => {
    // npx runs the bin through its `#!/usr/bin/env node`: the first node on PATH is the one under test.
    const PATH = `${dirname(runtime)}:${process.env.PATH}`;
    const help = await run("npx", ["audience-research-sim", "--help"], dir, { PATH });
    expect(help.code, help.out).toBe(0);
    expect(help.out).toMatch(/^Usage: audience-research-sim <command>/m);
    const serveHelp = await run("npx", ["audience-research-sim", "serve", "--help"], dir, { PATH });
    expect(serveHelp.out).toContain("--max-sandboxes");
    const version = await run("npx", ["audience-research-sim", "--version"], dir, { PATH });
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(version.out.trim()).toBe(pkg.version);
    // What the shebang found: the Node under test.
    const shebang = await run("env", ["node", "--version"], dir, { PATH });
    expect(shebang.out.trim()).toBe((await node(["--version"], runtime)).out.trim());
  });

  it.each(RUNTIMES)(
    "on %s: serves as the Dockerfile runs it (0.0.0.0, token from the environment), and `conformance` checks it clean",
    async (_, runtime) => {
      const version = await node(["--version"], runtime);
      expect(version.out).toMatch(runtime === process.execPath ? /^v2[24]\./ : /^v22\./);
      const args = [bin, "serve", "--host", "0.0.0.0", "--port", "0", "--clock", "manual", "--quiet"];
      const server = spawn(runtime, args, {
        cwd: dir,
        env: { ...process.env, SIM_CONTROL_TOKEN: "docker-secret" },
      });
      children.push(server);
      let out = "";
      server.stdout.on("data", (b) => (out += b));
      const deadline = Date.now() + 30_000;
      while (!/Press Ctrl\+C to stop/.test(out) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const port = /listening on http:\/\/\S*:(\d+)/.exec(out)?.[1];
      expect(port, out).toBeDefined();
      const origin = `http://127.0.0.1:${port}`;
      // The control plane wants the token; the docs page anyone can open shows no key.
      expect((await fetch(`${origin}/__sim/manifest`)).status).toBeGreaterThanOrEqual(400);
      expect(await (await fetch(`${origin}/`)).text()).not.toMatch(/service_[A-Za-z0-9]/);
      // The Dockerfile's HEALTHCHECK command.
      const probe = `fetch('${origin}/_openapi.json').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
      expect((await node(["-e", probe], runtime)).code).toBe(0);
      const only = "^(generic/auth-401|domain/identity|stateful/world):";
      const checked = await node(
        [
          bin,
          "conformance",
          "--target",
          origin,
          "--control-token",
          "docker-secret",
          "--seed",
          "5",
          "-t",
          only,
          "--junit",
          "report.xml",
        ],
        runtime,
      );
      expect(checked.code, checked.out).toBe(0);
      expect(checked.out).toContain("3 checks: 3 passed");
      // The report lands in the working directory, as a CI job expects.
      expect(readFileSync(join(dir, "report.xml"), "utf8")).toMatch(
        /<testsuites[^>]* tests="3"[^>]* failures="0"/,
      );
      expect((await fetch(`${origin}/_docs/scalar.js`)).status).toBe(200);
      // Prism, an optional peer, is not installed: Prefer: dynamic=true says why it served the example.
      const manifest = (await (
        await fetch(`${origin}/__sim/manifest`, { headers: { "x-sim-control-token": "docker-secret" } })
      ).json()) as { users: { owner: { apiKey: string } } };
      const dynamic = await fetch(`${origin}/api/v1/auth/me`, {
        headers: { authorization: `Bearer ${manifest.users.owner.apiKey}`, prefer: "dynamic=true" },
      });
      expect(dynamic.headers.get("x-sim-prefer-fallback")).toMatch(/prism-http is not installed/);
      // A PDF export from the served program: its vendored pdf-lib, loaded on the first one.
      const owner = {
        authorization: `Bearer ${manifest.users.owner.apiKey}`,
        "content-type": "application/json",
      };
      const control = { "x-sim-control-token": "docker-secret", "content-type": "application/json" };
      const m = (await (await fetch(`${origin}/__sim/manifest`, { headers: control })).json()) as {
        audiences: { main: { id: string } };
      };
      const base = `${origin}/api/v1/audiences/${m.audiences.main.id}`;
      const asked = await fetch(`${base}/export`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({ kind: "brief", format: "pdf", force: true }),
      });
      expect(asked.status).toBe(200);
      await fetch(`${origin}/__sim/clock/advance`, {
        method: "POST",
        headers: control,
        body: '{"ms":60000}',
      });
      const pdf = await fetch(`${base}/export-download?kind=brief&format=pdf`, { headers: owner });
      expect(pdf.status).toBe(200);
      expect(new TextDecoder().decode(new Uint8Array(await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
      // The validating proxy in front of it: a clean exchange, then on SIGTERM exit 0 and the reports.
      const proxy = spawn(runtime, [bin, "proxy", "--upstream", origin, "--port", "0", "--report", "proxy"], {
        cwd: dir,
      });
      children.push(proxy);
      let said = "";
      proxy.stdout.on("data", (b) => (said += b));
      while (!/proxy: http:\/\/\S+/.test(said) && Date.now() < deadline + 30_000)
        await new Promise((r) => setTimeout(r, 50));
      const front = /proxy: (http:\/\/\S+)/.exec(said)?.[1];
      expect(front, said).toBeDefined();
      const through = await fetch(`${front}/api/v1/auth/me`, {
        headers: { authorization: `Bearer ${manifest.users.owner.apiKey}` },
      });
      expect(through.status).toBe(200);
      const stopped = new Promise((done) => proxy.on("close", done));
      proxy.kill("SIGTERM");
      expect(await stopped, said).toBe(0);
      const judged = JSON.parse(readFileSync(join(dir, "proxy", "proxy-report.json"), "utf8"));
      expect([judged.exchanges, judged.violations.length]).toEqual([1, 0]);
      server.kill("SIGTERM");
    },
    120_000,
  );

  it.each(
    RUNTIMES,
  )("on %s: is imported by plain Node, `.` and `./msw` (with its msw peer installed), with no loader", async (_, runtime) => {
    if (!existsSync(join(dir, "node_modules/msw"))) {
      const peer = await run("npm", ["install", "msw@2", "--prefer-offline", "--no-audit", "--no-fund"]);
      expect(peer.code, peer.out).toBe(0);
    }
    const script = `
      const { createSimulator } = await import("audience-research-sim");
      const { createHandlers } = await import("audience-research-sim/msw");
      const sim = createSimulator({ clock: "manual" });
      await sim.ready;
      const key = sim.manifest().users.owner.apiKey;
      const res = await sim.fetch(new Request("http://sim.test/api/v1/auth/me", { headers: { authorization: "Bearer " + key } }));
      // A scenario file of the consumer's own, and the schema its editor reads, from the package.
      const { readFileSync } = await import("node:fs");
      const world = JSON.parse(readFileSync("world.json", "utf8"));
      const own = createSimulator({ clock: "manual", scenario: world });
      await own.ready;
      const schema = (await import("audience-research-sim/scenario.schema.json", { with: { type: "json" } })).default;
      // A PDF export: the document writer the package bundles loads on first use.
      const h = { authorization: "Bearer " + key, "content-type": "application/json" };
      const base = "http://sim.test/api/v1/audiences/" + sim.manifest().audiences.main.id;
      await sim.fetch(new Request(base + "/export", { method: "POST", headers: h, body: JSON.stringify({ kind: "brief", format: "pdf", force: true }) }));
      await sim.fetch(new Request("http://sim.test/__sim/clock/advance", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ms: 60000 }) }));
      const pdf = await sim.fetch(new Request(base + "/export-download?kind=brief&format=pdf", { headers: h }));
      const magic = new TextDecoder().decode(new Uint8Array(await pdf.arrayBuffer()).slice(0, 5));
      console.log(res.status, typeof createHandlers, own.manifest().scenario, schema.title, pdf.status, magic);`;
    writeFileSync(
      join(dir, "world.json"),
      JSON.stringify({
        ...JSON.parse(readFileSync(join(ROOT, "examples/shared-viewer.json"), "utf8")),
        $schema: "./node_modules/audience-research-sim/scenario.schema.json",
      }),
    );
    const r = await node(["--input-type=module", "-e", script], runtime);
    expect(r.out.trim()).toBe("200 function shared-viewer ScenarioDocument 200 %PDF-");
    // And from the command line: every problem of a bad file, exit 2.
    writeFileSync(join(dir, "bad-world.json"), JSON.stringify({ users: { a: { plan: "gold" } } }));
    const bad = await node([bin, "serve", "--scenario", "./bad-world.json", "--port", "0"], runtime);
    expect(bad.code, bad.out).toBe(2);
    expect(bad.out).toContain("/users/a/plan");
  });

  it.each([
    ["NodeNext", "NodeNext"],
    ["Bundler", "Preserve"],
  ])(
    "type-checks in a strict TypeScript project against its declarations (moduleResolution %s)",
    async (resolution, module) => {
      // The consumer's own tools: TypeScript and Node's types (the package may have brought @types already).
      mkdirSync(join(dir, "node_modules/@types"), { recursive: true });
      for (const name of ["typescript", "@types/node"])
        if (!existsSync(join(dir, "node_modules", name)))
          symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name), "dir");
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module,
            moduleResolution: resolution,
            strict: true,
            noEmit: true,
            types: ["node"],
            lib: ["ES2022", "DOM"],
            erasableSyntaxOnly: true,
          },
          files: ["index.ts"],
        }),
      );
      writeFileSync(
        join(dir, "index.ts"),
        `import { createSimulator, defineScenario } from "audience-research-sim";
import { createHandlers } from "audience-research-sim/msw";
const sim = createSimulator({ clock: "manual" });
const answer: Promise<Response> = sim.fetch(new Request("http://sim.test/api/v1/auth/me"));
void answer;
const world = defineScenario({
  users: { dev: { plan: "premium", apiKeys: [{ name: "CI" }] } },
  audiences: { mine: { owner: "dev", members: [{ generate: 3, training: "running" }], grounding: { uploadedFile: true } } },
  setup: [{ as: "dev", method: "POST", path: "/api/v1/audiences/{audiences.mine}/export", body: { format: "md" } }],
});
void createHandlers({ scenario: world });
// @ts-expect-error: not a plan
defineScenario({ users: { dev: { plan: "gold" } } });
`,
      );
      const r = await node([join(dir, "node_modules/typescript/bin/tsc"), "-p", dir]);
      expect(r.code, r.out).toBe(0);
    },
    60_000,
  );
});
