import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, startArgs } from "../../scripts/build.ts";
import { ROOT } from "../../testing/cli.ts";
import { EXPORT_RUN_MS, EXPORT_START_DELAY_MS } from "../resources/exports/exports.ts";
import { createSimulator } from "../simulator.ts";
import { prebuiltText } from "./prebuilt.ts";

/**
 * What `npm start` runs: the esbuild bundle in dist/, with the flags of package.json. The packages it leaves
 * in node_modules (documents, Prism, Scalar's browser bundle) must still be found from dist/.
 */
describe("npm start (the bundle in dist/)", () => {
  const child = { current: null as ReturnType<typeof spawn> | null };
  let exited: Promise<number | null> = Promise.resolve(null);
  let origin = "";
  let key = "";
  let stdout = "";
  let stderr = "";

  beforeAll(async () => {
    await buildIfStale();
    const proc = spawn(process.execPath, [...startArgs(), "--port", "0", "--clock", "manual", "--quiet"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "", HOST: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.current = proc;
    exited = new Promise((resolve) => proc.once("exit", (code) => resolve(code)));
    proc.stdout?.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    proc.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const deadline = Date.now() + 30_000;
    while (!/Press Ctrl\+C to stop/.test(stdout)) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        throw new Error(`did not start:\n${stdout}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    origin = stdout.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] ?? "";
    key = stdout.match(/^\s+owner\s+premium\s+active\s+(service_\w+)$/m)?.[1] ?? "";
  });

  afterAll(() => {
    child.current?.kill("SIGKILL");
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });

  // First, while the world is as it started (the requests below change it).
  it("starts from the world the build made ahead, which is the world the sources build", async () => {
    const file = join(ROOT, "dist/templates/default-1.json");
    expect(readFileSync(file, "latin1")).toBe(prebuiltText("default", 1));
    const built = createSimulator({ clock: "manual" });
    await built.ready;
    const served = await (await fetch(`${origin}/__sim/snapshot`)).text();
    expect(served).toBe(JSON.stringify(built.snapshot()));
    expect(stderr).not.toMatch(/passed over/);
  });

  it("answers the API", async () => {
    const r = await get("/api/v1/auth/me");
    expect(r.status).toBe(200);
    expect(await r.json()).toHaveProperty("id");
  });

  // ajv and ajv-formats are stand-ins in the bundle that load the packages on first use (scripts/build.ts).
  it("checks a body and a snapshot with the contract's validators, made on first use", async () => {
    const refused = await fetch(`${origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: 5 }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toBe("name must be a string");
    const snapshot = (await (await fetch(`${origin}/__sim/snapshot`)).json()) as {
      state: { tables: { users: [string, { plan: string }][] } };
    };
    const user = snapshot.state.tables.users[0]?.[1] as { plan: string };
    user.plan = "gold";
    const bad = await fetch(`${origin}/__sim/snapshot`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(snapshot),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain("/state/tables/users/0/1/plan");
  });

  it("serves Scalar's browser bundle from node_modules", async () => {
    const r = await get("/_docs/scalar.js");
    expect(r.status).toBe(200);
    expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it("loads Prism on the first Prefer: dynamic=true", async () => {
    const r = await get("/api/v1/api-keys", { prefer: "dynamic=true" });
    expect(r.status).toBe(200);
    expect(r.headers.get("preference-applied")).toContain("dynamic=true");
  });

  it("loads the document libraries for an export", async () => {
    const manifest = (await (await fetch(`${origin}/__sim/manifest`)).json()) as {
      audiences: Record<string, { id: string }>;
    };
    const base = `/api/v1/audiences/${manifest.audiences.main?.id}`;
    const posted = await fetch(`${origin}${base}/export`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "brief", format: "pdf" }),
    });
    expect(posted.status).toBe(200);
    const { downloadUrl } = ((await posted.json()) as { data: { downloadUrl: string } }).data;
    await fetch(`${origin}/__sim/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ms: EXPORT_START_DELAY_MS + EXPORT_RUN_MS }),
    });
    const file = await get(downloadUrl);
    expect(file.status).toBe(200);
    expect(new TextDecoder().decode((await file.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
  });

  it("stops with 0 on SIGTERM", async () => {
    child.current?.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/\[bug\]|\[server\]/);
  });
});
