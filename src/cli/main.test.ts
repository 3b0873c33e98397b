import net from "node:net";
import { request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { startCli as cli, freePort, killAllClis, type CliRun as Run, stopCli } from "../../testing/cli.ts";
import { scenarios } from "../scenarios/index.ts";

async function waitFor(run: Run, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = run.stdout().match(pattern);
    if (m) return m;
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} in output.\nstdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(killAllClis);

describe("npm start (src/cli/main.ts)", () => {
  it("serves on an ephemeral port, prints URLs and keys, logs requests, stops on SIGTERM with 0", async () => {
    const run = cli(["--port", "0", "--clock", "manual", "--log", "json"]);
    const [, origin] = await waitFor(run, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await waitFor(run, /Press Ctrl\+C to stop/);
    const out = run.stdout();
    expect(origin).not.toMatch(/:0$/);
    for (const path of ["/api/v1", "/v1", "/api/acp", "/_openapi.json", "/__sim/manifest"]) {
      expect(out).toContain(`${origin}${path}`);
    }
    expect(out).toMatch(/Scenario\s+default \(seed 1\)/);
    expect(out).toMatch(/Clock\s+manual/);
    const ownerKey = out.match(/^\s+owner\s+premium\s+active\s+(service_\w+)$/m)?.[1];
    expect(ownerKey).toBeDefined();
    expect(out).toContain(`curl -H "Authorization: Bearer ${ownerKey}" ${origin}/api/v1/auth/me`);

    const r = await request(`${origin}/api/v1/auth/me`, { headers: { authorization: `Bearer ${ownerKey}` } });
    expect(r.statusCode).toBe(200);
    expect(await r.body.json()).toHaveProperty("id");

    const [line] = await waitFor(run, /^\{.*"path":"\/api\/v1\/auth\/me".*\}$/m);
    expect(JSON.parse(line)).toMatchObject({ method: "GET", path: "/api/v1/auth/me", status: 200 });

    expect(await stopCli(run)).toEqual({ code: 0, signal: null });
    expect(run.stderr()).not.toMatch(/\[bug\]|\[server\]/);
  });

  it("takes PORT and HOST from the environment, and --no-control turns the control plane off", async () => {
    const port = await freePort();
    const run = cli(["--no-control", "--quiet", "--clock", "manual"], {
      PORT: String(port),
      HOST: "127.0.0.1",
    });
    await waitFor(run, /Press Ctrl\+C to stop/);
    expect(run.stdout()).toMatch(/Control\s+off/);
    const r = await request(`http://127.0.0.1:${port}/__sim/manifest`);
    expect(r.statusCode).toBe(404);
    await r.body.dump();
    // With the control plane off, no public page shows an API key.
    const page = await (await request(`http://127.0.0.1:${port}/`)).body.text();
    expect(page).toContain("API keys are not shown here");
    expect(page).not.toMatch(/service_[A-Za-z0-9]/);
    run.child.kill("SIGINT");
    expect((await run.exit).code).toBe(0);
    expect(run.stdout()).not.toContain("GET /__sim/manifest");
  });

  it("exits 1 with a clear message when the port is taken", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const run = cli(["--port", String(port)]);
      expect((await run.exit).code).toBe(1);
      expect(run.stderr()).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it("exits 2 on --clock bogus", async () => {
    const run = cli(["--clock", "bogus"]);
    expect((await run.exit).code).toBe(2);
    expect(run.stderr()).toContain('--clock must be "real" or "manual", not "bogus"');
  });

  it("exits 2 on --scenario nope, naming the known scenarios", async () => {
    const run = cli(["--scenario", "nope"]);
    expect((await run.exit).code).toBe(2);
    expect(run.stderr()).toContain('Unknown scenario "nope"');
    for (const s of scenarios) expect(run.stderr()).toContain(s.name);
  });

  it("exits 2 on an unknown flag, 0 with usage on --help", async () => {
    const bad = cli(["--frobnicate"]);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr()).toContain("--frobnicate");
    const help = cli(["--help"]);
    expect((await help.exit).code).toBe(0);
    expect(help.stdout()).toContain("Usage: audience-research-sim serve [options]");
    expect(help.stdout()).toContain("npm start -- [options]");
  });
});
