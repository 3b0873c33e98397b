/**
 * The proxy's command line, run as a user runs it: it listens, prints a violation as it happens, and on
 * SIGTERM writes its three reports (and, with --record, the world it saw) where it was asked to and exits
 * 1 (a violation was seen); bad usage is exit 2.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type BrokenServer, brokenServer } from "./harness.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = join(ROOT, "conformance/proxy/cli.ts");
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const dir = mkdtempSync(join(tmpdir(), "proxy-cli-"));
let server: BrokenServer;
beforeAll(async () => {
  server = await brokenServer(null);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]) {
  const child = spawn(process.execPath, ["--import", TSX, CLI, ...args], { cwd: dir });
  let out = "";
  child.stdout.on("data", (b) => (out += b));
  child.stderr.on("data", (b) => (out += b));
  const exited = new Promise<number | null>((done) => child.on("close", done));
  return { child, exited, output: () => out };
}

it("forwards, prints what it finds, and writes its reports on SIGTERM", async () => {
  const p = start([
    "--upstream",
    server.info.baseUrl,
    "--port",
    "0",
    "--report",
    "out",
    "--record",
    "world.json",
  ]);
  const deadline = Date.now() + 20_000;
  while (!/proxy: (http:\/\/\S+)/.test(p.output()) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const url = /proxy: (http:\/\/\S+)/.exec(p.output())?.[1] as string;
  expect(url).toBeDefined();
  const ok = await fetch(`${url}/api/v1/auth/me`, {
    headers: { authorization: `Bearer ${server.info.keys.owner}` },
  });
  expect(ok.status).toBe(200);
  // A body the contract refuses: the client's violation, printed as it happens.
  const bad = await fetch(`${url}/api/v1/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.info.keys.owner}`, "content-type": "application/json" },
    body: "{",
  });
  expect(bad.status).toBe(400);
  while (!p.output().includes("input/invalid-400") && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  p.child.kill("SIGTERM");
  expect(await p.exited).toBe(1);
  expect(p.output()).toContain("[client: request] input/invalid-400");
  expect(p.output()).toContain("1 violations (0 upstream, 1 client; --fail-on any counts 1)");
  expect(p.output()).not.toMatch(/service_[A-Za-z0-9]{20}/);
  for (const f of ["proxy-report.json", "proxy-junit.xml", "proxy-report.html"])
    expect(existsSync(join(dir, "out", f)), f).toBe(true);
  const report = JSON.parse(readFileSync(join(dir, "out", "proxy-report.json"), "utf8"));
  expect(report.exchanges).toBe(2);
  expect(report.violations.map((v: { ruleId: string; side: string }) => `${v.side} ${v.ruleId}`)).toEqual([
    "client input/invalid-400",
  ]);
  expect(readFileSync(join(dir, "out", "proxy-junit.xml"), "utf8")).toContain('name="input/invalid-400"');
  // --record: the world the session showed (its caller), as a scenario document, keys left out.
  const world = JSON.parse(readFileSync(join(dir, "world.json"), "utf8"));
  expect(Object.keys(world.users)).toEqual(["user1"]);
  expect(JSON.stringify(world)).not.toContain(server.info.keys.owner as string);
  expect(p.output()).toContain("recorded the world the traffic showed");
}, 60_000);

/** A proxy run that sends one request the contract refuses (a client's mistake), stopped with SIGTERM. */
async function clientMistake(args: string[]) {
  const p = start(["--upstream", server.info.baseUrl, "--port", "0", "--report", "out2", ...args]);
  const deadline = Date.now() + 20_000;
  while (!/proxy: (http:\/\/\S+)/.test(p.output()) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const url = /proxy: (http:\/\/\S+)/.exec(p.output())?.[1] as string;
  // No API key: the client's mistake; the upstream's 401 is right.
  const res = await fetch(`${url}/api/v1/auth/me`);
  while (!p.output().includes("auth/401") && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  p.child.kill("SIGTERM");
  return { res, code: await p.exited, out: p.output() };
}

it("tells the client's side from the upstream's: --fail-on sets the exit status and what --errors answers", async () => {
  const upstream = await clientMistake(["--fail-on", "upstream", "--errors"]);
  // The client's finding is reported, not counted, and its right answer passes unchanged.
  expect(upstream.res.status).toBe(401);
  expect(upstream.out).toContain("[client: request] auth/401");
  expect(upstream.out).toContain("(0 upstream, 1 client; --fail-on upstream counts 0)");
  expect(upstream.code).toBe(0);
  const client = await clientMistake(["--fail-on", "client", "--errors"]);
  expect(client.res.status).toBe(502);
  const body = (await client.res.json()) as { message: string; data: { violations: { side: string }[] } };
  expect(body.message).toMatch(/^The request breaks the contract: auth\/401/);
  expect(body.data.violations.map((v) => v.side)).toEqual(["client"]);
  expect(client.code).toBe(1);
  const bad = start(["--upstream", server.info.baseUrl, "--fail-on", "server"]);
  expect(await bad.exited).toBe(2);
  expect(bad.output()).toContain("--fail-on must be upstream, client or any");
}, 60_000);

it("exits 2 on bad usage", async () => {
  const p = start(["--upstream", "not-a-url"]);
  expect(await p.exited).toBe(2);
  expect(p.output()).toContain("--upstream must be an http(s) URL");
});
