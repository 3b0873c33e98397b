/**
 * Past one machine: two simulator processes (`--instance a`, `--instance b`) behind nginx running
 * deploy/nginx.conf as shipped (only the upstream addresses and the port replaced), as deploy/compose.yaml
 * arranges them. Two partners whose sandboxes live on different processes both work through the one front
 * URL, by key, by control path and by checkout link. Skipped, saying so, where nginx is not installed
 * (`.ci/run` installs Debian's).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callJson as call, freePort, ROOT, serveCli } from "../../testing/cli.ts";
import { tempDirForTests } from "../../testing/temp-dir.ts";

const NGINX = ["/usr/sbin/nginx", "nginx"].find((bin) => spawnSync(bin, ["-v"]).error === undefined);
if (!NGINX) console.warn("proxy.test: nginx is not installed (apt-get install nginx-light); skipped");

const tmp = tempDirForTests("sim-proxy-");
let nginx: ChildProcess | null = null;
afterAll(() => {
  nginx?.kill("SIGKILL");
});

const serve = (instance: string) => serveCli(["--quiet", "--control-token", "op", "--instance", instance]);

describe.skipIf(!NGINX)("two processes behind nginx (deploy/nginx.conf)", () => {
  it("routes two partners on different processes through one front URL", async () => {
    const [a, b] = await Promise.all([serve("a"), serve("b")]);
    const frontPort = await freePort();
    const conf = readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8")
      .replaceAll("sim-a:4010", `127.0.0.1:${a.port}`)
      .replaceAll("sim-b:4010", `127.0.0.1:${b.port}`)
      .replace("listen 8080;", `listen 127.0.0.1:${frontPort};`);
    expect(conf).not.toMatch(/sim-[ab]:4010|listen 8080/);
    mkdirSync(join(tmp.path, "logs"));
    chmodSync(tmp.path, 0o777);
    writeFileSync(join(tmp.path, "nginx.conf"), conf);
    nginx = spawn(
      NGINX as string,
      [
        "-p",
        `${tmp.path}/`,
        "-c",
        "nginx.conf",
        "-e",
        "logs/error.log",
        "-g",
        "daemon off; pid logs/nginx.pid;",
      ],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let nginxErr = "";
    nginx.stderr?.on("data", (d) => (nginxErr += d));
    const front = `http://127.0.0.1:${frontPort}`;
    const deadline = Date.now() + 15_000;
    while (
      (await fetch(`${front}/_openapi.json`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline || nginx.exitCode !== null)
        throw new Error(`nginx did not start: ${nginxErr}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // New sandboxes go to either process; make them until both processes hold one.
    const op = { "x-sim-control-token": "op" };
    const partners = new Map<string, { id: string; controlToken: string; manifest: any }>();
    for (let i = 0; i < 10 && partners.size < 2; i++) {
      const made = await call(front, "POST", "/__sim/sandboxes", op, { seed: 11 });
      expect(made.status).toBe(201);
      partners.set(made.body.id.split("-")[0], made.body);
    }
    const pa = partners.get("a");
    const pb = partners.get("b");
    if (!pa || !pb) throw new Error(`sandboxes only on ${[...partners.keys()]}`);

    for (const p of [pa, pb]) {
      const key = { authorization: `Bearer ${p.manifest.users.owner.apiKey}` };
      const me = await call(front, "GET", "/api/v1/auth/me", key);
      expect(me).toEqual({ status: 200, body: { id: p.manifest.users.owner.id } });
      const audience = `/api/v1/audiences/${p.manifest.audiences.main.id}`;
      expect((await call(front, "PUT", audience, key, { name: `Partner ${p.id}` })).status).toBe(200);
      const token = { "x-sim-control-token": p.controlToken };
      expect(
        (await call(front, "POST", `/__sim/sandboxes/${p.id}/clock/advance`, token, { ms: 1000 })).status,
      ).toBe(200);
      // The buyer's link carries no key: its path names the sandbox, and so the process.
      const session = await call(
        front,
        "POST",
        "/api/acp/checkout_sessions",
        { ...key, "idempotency-key": p.id },
        {
          line_items: [
            {
              id: p.manifest.prices.credits.id,
              name: p.manifest.prices.credits.name,
              unit_amount: p.manifest.prices.credits.unitAmount,
            },
          ],
          currency: p.manifest.prices.credits.currency,
          capabilities: {},
        },
      );
      expect(session.status, JSON.stringify(session.body)).toBe(201);
      const link = new URL(session.body.continue_url);
      expect(link.origin).toBe(front);
      expect((await call(front, "GET", link.pathname, {})).status).toBe(200);
    }
    // Each partner sees its own change only: the same IDs, two processes, two worlds.
    const nameOf = async (p: typeof pa) =>
      (
        await call(front, "GET", `/api/v1/audiences/${p.manifest.audiences.main.id}`, {
          authorization: `Bearer ${p.manifest.users.owner.apiKey}`,
        })
      ).body.data.name;
    expect(await nameOf(pa)).toBe(`Partner ${pa.id}`);
    expect(await nameOf(pb)).toBe(`Partner ${pb.id}`);
    // One partner's token opens nothing of the other's, wherever it lives.
    const cross = await call(front, "GET", `/__sim/sandboxes/${pb.id}/manifest`, {
      "x-sim-control-token": pa.controlToken,
    });
    expect(cross.status).toBe(404);
  }, 120_000);
});
