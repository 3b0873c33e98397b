/**
 * Sandboxes in the served program: with `--state-file`, every sandbox survives a SIGKILL under the same
 * rule as the default world (a change acknowledged is a change kept), a deleted one leaves no file, and
 * the flags that bound them are honoured.
 */
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callJson as call, runKit, serveCli, stopCli } from "../../testing/cli.ts";
import { tempDirForTests } from "../../testing/temp-dir.ts";

const tmp = tempDirForTests("sim-sandboxes-");

const serve = (args: string[]) => serveCli(["--quiet", "--control-token", "op", ...args]);

interface Created {
  id: string;
  controlToken: string;
  manifest: {
    now: string;
    users: Record<string, { apiKey: string }>;
    audiences: Record<string, { id: string }>;
  };
}

const op = { "x-sim-control-token": "op" };
const bearer = (c: Created) => ({ authorization: `Bearer ${c.manifest.users.owner?.apiKey}` });

/** The program with a state file, and a sandbox made in it per seed. */
async function servedWithSandboxes(file: string, seeds: number[]) {
  const state = join(tmp.path, file);
  const served = await serve(["--state-file", state]);
  const made: Created[] = [];
  for (const seed of seeds)
    made.push((await call(served.base, "POST", "/__sim/sandboxes", op, { seed })).body);
  return { state, ...served, made };
}

describe("sandboxes of the served program", () => {
  it("survive SIGKILL with --state-file: changes kept, keys and tokens still valid; a deleted one is gone", async () => {
    let { state, run, base, made } = await servedWithSandboxes("world.json", [4, 4]);
    const [a, b] = made as [Created, Created];
    const audience = `/api/v1/audiences/${a.manifest.audiences.main?.id}`;
    expect((await call(base, "PUT", audience, bearer(a), { name: "Kept across a kill" })).status).toBe(200);
    const sbCtl = (c: Created) => ({ "x-sim-control-token": c.controlToken });
    expect(
      (await call(base, "POST", `/__sim/sandboxes/${b.id}/clock/advance`, sbCtl(b), { ms: 60_000 })).status,
    ).toBe(200);

    run.child.kill("SIGKILL");
    await run.exit;
    ({ run, base } = await serve(["--state-file", state]));
    expect(run.stdout()).toContain("2 brought back from the state file");
    expect((await call(base, "GET", audience, bearer(a))).body.data.name).toBe("Kept across a kill");
    expect((await call(base, "GET", audience, bearer(b))).body.data.name).not.toBe("Kept across a kill");
    const bNow = (await call(base, "GET", `/__sim/sandboxes/${b.id}/manifest`, sbCtl(b))).body.now;
    expect(Date.parse(bNow) - Date.parse(b.manifest.now)).toBeGreaterThanOrEqual(60_000);

    expect((await call(base, "DELETE", `/__sim/sandboxes/${a.id}`, sbCtl(a))).status).toBe(204);
    expect((await readdir(tmp.path)).filter((f) => f.includes(a.id))).toEqual([]);
    run.child.kill("SIGKILL");
    await run.exit;
    ({ run, base } = await serve(["--state-file", state]));
    expect((await call(base, "GET", "/api/v1/auth/me", bearer(a))).status).toBe(401);
    expect((await call(base, "GET", "/api/v1/auth/me", bearer(b))).status).toBe(200);
    const listed = (await call(base, "GET", "/__sim/sandboxes", op)).body as { id: string }[];
    expect(listed.map((s) => s.id)).toEqual([b.id]);
    expect((await stopCli(run)).code).toBe(0);
  }, 90_000);

  it("restore a saved sandbox on its first request: one whose log cannot be read gets 500 and is named, the rest serve", async () => {
    let { state, run, base, made } = await servedWithSandboxes("unreadable.json", [5, 6]);
    const [broken, fine] = made as [Created, Created];
    for (const c of made)
      expect((await call(base, "POST", "/api/v1/api-keys", bearer(c), { name: "k" })).status).toBe(201);
    expect((await stopCli(run)).code).toBe(0);
    // A log that cannot be read at all (a directory where the file was).
    const log = (await readdir(tmp.path)).find((f) =>
      f.startsWith(`unreadable.json.sandbox-${broken.id}.log.`),
    );
    if (!log) throw new Error("no log of the sandbox");
    await rm(join(tmp.path, log));
    await mkdir(join(tmp.path, log));
    ({ run, base } = await serve(["--state-file", state]));
    // Listed and started without reading it...
    expect(((await call(base, "GET", "/__sim/sandboxes", op)).body as { id: string }[]).length).toBe(2);
    expect(run.stderr()).not.toContain(broken.id);
    // ...and named on its first request, which gets the 500 envelope; the others are untouched.
    const r = await call(base, "GET", "/api/v1/auth/me", bearer(broken));
    expect(r.status).toBe(500);
    expect(r.body.error).toBe(true);
    expect(run.stderr()).toContain(`error: sandbox ${broken.id}`);
    const keys = (await call(base, "GET", "/api/v1/api-keys", bearer(fine))).body as {
      name: string | null;
    }[];
    expect(keys.some((k) => k.name === "k")).toBe(true);
    expect((await call(base, "GET", "/api/v1/auth/me", {})).status).toBe(401);
    expect((await stopCli(run)).code).toBe(0);
  }, 90_000);

  it("runs the conformance kit in a new sandbox, then deletes it; the default world is left alone", async () => {
    const { run, base } = await serve(["--clock", "manual"]);
    const main = (await call(base, "GET", "/__sim/manifest", op)).body as Created["manifest"];
    const owner = { authorization: `Bearer ${main.users.owner?.apiKey}` };
    const audience = `/api/v1/audiences/${main.audiences.main?.id}`;
    expect((await call(base, "PUT", audience, owner, { name: "The default world's own" })).status).toBe(200);
    const only = "^(generic/auth-401|domain/identity|stateful/world):";
    const args = ["--target", base, "--control-token", "op", "--sandbox", "new", "--seed", "2", "-t", only];
    const kit = runKit(args, join(tmp.path, "reports"));
    expect(kit.status, kit.stdout + kit.stderr).toBe(0);
    expect(kit.stdout).toContain("(simulator, a new sandbox)");
    expect(kit.stdout).toMatch(/3 checks: 3 passed/);
    expect(kit.stdout).toMatch(/sandbox [a-z2-7]{12}: deleted/);
    expect((await call(base, "GET", audience, owner)).body.data.name).toBe("The default world's own");
    expect((await call(base, "GET", "/__sim/sandboxes", op)).body).toEqual([]);
    await stopCli(run);
  }, 150_000);

  it("names the sandbox in the request log; the sandbox's own journal is as the control plane documents it", async () => {
    const { run, base } = await serveCli(["--log", "json", "--control-token", "op"]);
    const made = (await call(base, "POST", "/__sim/sandboxes", { "x-sim-control-token": "op" }, {}))
      .body as Created;
    const key = { authorization: `Bearer ${made.manifest.users.owner?.apiKey}` };
    expect((await call(base, "GET", "/api/v1/auth/me", key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    const lines = run
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    const logged = lines.map((l) => JSON.parse(l)).find((e) => e.path === "/api/v1/auth/me");
    expect(logged).toMatchObject({ status: 200, sandbox: made.id });
    const journal = await call(base, "GET", `/__sim/sandboxes/${made.id}/requests?limit=5`, {
      "x-sim-control-token": made.controlToken,
    });
    expect(Object.keys(journal.body[0]).sort()).toEqual([
      "at",
      "id",
      "method",
      "ms",
      "path",
      "query",
      "request",
      "response",
      "status",
      "userId",
    ]);
    await stopCli(run);
  }, 60_000);

  it("removes an idle sandbox after --sandbox-ttl even when no request comes; its keys then get 401", async () => {
    const state = join(tmp.path, "ttl.json");
    const { run, base } = await serve(["--sandbox-ttl", "300ms", "--state-file", state]);
    const made = (await call(base, "POST", "/__sim/sandboxes", op, {})).body as Created;
    const listed = async () => JSON.parse(await readFile(`${state}.sandboxes.json`, "utf8")).sandboxes;
    expect(await listed()).toHaveLength(1);
    // No request in between: the registry on disk shows the timer's sweep, not one a request set off.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await listed()).toEqual([]);
    const key = { authorization: `Bearer ${made.manifest.users.owner?.apiKey}` };
    expect((await call(base, "GET", "/api/v1/auth/me", key)).status).toBe(401);
    expect((await call(base, "GET", "/__sim/sandboxes", op)).body).toEqual([]);
    await stopCli(run);
  }, 60_000);

  it("honours --max-sandboxes and --instance", async () => {
    const { run, base } = await serve(["--max-sandboxes", "1", "--instance", "east"]);
    const first = await call(base, "POST", "/__sim/sandboxes", op, {});
    expect(first.status).toBe(201);
    expect(first.body.id).toMatch(/^east-[a-z2-7]{12}$/);
    expect(first.body.manifest.users.owner.apiKey).toMatch(/^service_sbx_east-[a-z2-7]{12}_/);
    const second = await call(base, "POST", "/__sim/sandboxes", op, {});
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ error: true, statusCode: 429 });
    await stopCli(run);
  }, 60_000);
});
