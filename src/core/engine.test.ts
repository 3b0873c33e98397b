import { describe, expect, it } from "vitest";
import { expectError, harness, recordingHarness } from "../../testing/harness.ts";
import { createSimulator } from "../simulator.ts";
import { Answer } from "./request/exchange.ts";

describe("the engine", () => {
  it("sends rate-limit headers on every v1 answer, 429 past the limit with Retry-After, and recovers", async () => {
    const h = await harness({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const r = await h.call("GET", "/api/v1/auth/me");
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-limit")).toBe("3");
      expect(r.headers.get("ratelimit-remaining")).toBe(String(2 - i));
    }
    const limited = await h.call("GET", "/api/v1/auth/me");
    expectError(limited, 429, "Too many requests. Please try again later.");
    expect(Number(limited.headers.get("retry-after"))).toBe(60);
    // Another account has its own window.
    expect((await h.call("GET", "/api/v1/auth/me", { as: "solo" })).status).toBe(200);
    h.sim.advance(60_000);
    expect((await h.call("GET", "/api/v1/auth/me")).status).toBe(200);
  });

  it("answers an unknown route 404 and a wrong method 405 with Allow, both in the envelope", async () => {
    const h = await harness();
    const nf = await h.call("GET", "/api/v1/does-not-exist");
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ statusCode: 404, url: "/api/v1/does-not-exist", error: true });
    const na = await h.call("PATCH", "/api/v1/auth/me", { unchecked: true });
    expect(na.status).toBe(405);
    expect(na.headers.get("allow")).toBe("GET");
    expect(na.body.error).toBe(true);
  });

  it("answers HEAD like GET without a body", async () => {
    const h = await harness();
    const r = await h.call("HEAD", "/api/v1/auth/me", { unchecked: true });
    expect(r.status).toBe(200);
    expect(r.text).toBe("");
  });

  it("turns a bug into a redacted 500 and reports it, without crashing", async () => {
    const bugs: unknown[] = [];
    const sim = createSimulator({ clock: "manual", onError: (e) => bugs.push(e) });
    await sim.ready;
    const key = sim.manifest().users.owner?.apiKey as string;
    // Corrupt the state the way a handler bug would find it.
    (sim.state as unknown as { apiKeyByHash: unknown }).apiKeyByHash = null;
    const r = await sim.fetch(
      new Request("http://x/api/v1/auth/me", { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(r.status).toBe(500);
    const body = await r.json();
    expect(body).toEqual({
      statusCode: 500,
      statusMessage: "Internal Server Error",
      message: "Internal Server Error",
      url: "/api/v1/auth/me",
      error: true,
    });
    expect(bugs).toHaveLength(1);
    expect(JSON.stringify(body)).not.toContain("apiKeyByHash");
  });

  it("is deterministic: the same scenario, seed and requests give the same answers", async () => {
    const run = async () => {
      const h = await harness({ seed: 42 });
      const created = await h.call("POST", "/api/v1/api-keys", { body: { name: "x" } });
      return { manifest: h.sim.manifest(), created: created.body };
    };
    expect(await run()).toEqual(await run());
  });
});

describe("the control plane", () => {
  it("serves the manifest, scenarios, clock, config, faults and journal", async () => {
    const h = await harness();
    const manifest = await h.call("GET", "/__sim/manifest", { as: null });
    expect(manifest.body.scenario).toBe("default");
    expect(manifest.body.users.owner.apiKey).toMatch(/^service_/);
    const scenarios = await h.call("GET", "/__sim/scenarios", { as: null });
    expect(scenarios.body.map((s: { name: string }) => s.name)).toContain("default");
    const adv = await h.call("POST", "/__sim/clock/advance", { as: null, body: { ms: 90_000 } });
    expect(adv.body.now).toBe("2026-11-21T12:01:30.000Z");
    const cfg = await h.call("PATCH", "/__sim/config", { as: null, body: { rateLimitPerMinute: 10 } });
    expect(cfg.body.rateLimitPerMinute).toBe(10);
    expect((await h.call("GET", "/api/v1/auth/me")).headers.get("ratelimit-limit")).toBe("10");
    const rule = await h.call("POST", "/__sim/faults", {
      as: null,
      body: { path: "/api/v1/auth/me", status: 503, times: 1 },
    });
    expect(rule.status).toBe(201);
    expect((await h.call("GET", "/api/v1/auth/me", { unchecked: true })).status).toBe(503);
    expect((await h.call("GET", "/api/v1/auth/me")).status).toBe(200);
    expect((await h.call("DELETE", "/__sim/faults", { as: null })).status).toBe(204);
    const journal = await h.call("GET", "/__sim/requests?limit=2", { as: null });
    expect(journal.body).toHaveLength(2);
    expect(journal.body[0]).toMatchObject({ method: "DELETE", path: "/__sim/faults", status: 204 });
    expect(journal.body[1]).toMatchObject({
      method: "GET",
      path: "/api/v1/auth/me",
      status: 200,
      userId: h.id("users", "owner"),
    });
  });

  it("resets to a named scenario and seed, and names the known ones for an unknown scenario", async () => {
    const h = await harness();
    const before = h.sim.manifest().users.owner?.id;
    const reset = await h.call("POST", "/__sim/reset", { as: null, body: { scenario: "default", seed: 2 } });
    expect(reset.body.seed).toBe(2);
    expect(reset.body.users.owner.id).not.toBe(before);
    const bad = await h.call("POST", "/__sim/reset", { as: null, body: { scenario: "nope" } });
    expect(bad.status).toBe(400);
    expect(bad.body.statusMessage).toContain("default");
    for (const body of [{ seed: "1" }, { scenario: 3 }]) {
      expect((await h.call("POST", "/__sim/reset", { as: null, body })).status).toBe(400);
    }
  });

  it("refuses bad input with a 4xx envelope", async () => {
    const h = await harness();
    for (const [method, path, body] of [
      ["POST", "/__sim/clock/advance", { ms: -1 }],
      ["POST", "/__sim/clock/advance", { ms: 1.5 }],
      ["PATCH", "/__sim/config", { rateLimitPerMinute: 0 }],
      ["POST", "/__sim/faults", {}],
      ["POST", "/__sim/faults", { status: 99 }],
      ["GET", "/__sim/requests?limit=0", undefined],
    ] as const) {
      const r = await h.call(method, path, { as: null, ...(body ? { body } : {}) });
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.error).toBe(true);
    }
    expect((await h.call("POST", "/__sim/reset", { as: null, raw: "{nope" })).status).toBe(400);
    expect((await h.call("GET", "/__sim/nothing", { as: null })).status).toBe(404);
    const wrong = await h.call("PUT", "/__sim/manifest", { as: null });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
    const head = await h.call("HEAD", "/__sim/manifest", { as: null });
    expect([head.status, head.text]).toEqual([200, ""]);
  });

  it("requires the control token when one is set, and disappears when turned off", async () => {
    const locked = await harness({ controlToken: "s3cret" });
    expect((await locked.call("GET", "/__sim/manifest", { as: null })).status).toBe(401);
    const ok = await locked.call("GET", "/__sim/manifest", {
      as: null,
      headers: { "x-sim-control-token": "s3cret" },
    });
    expect(ok.status).toBe(200);
    const off = await harness({ control: false });
    expect((await off.call("GET", "/__sim/manifest", { as: null })).status).toBe(404);
  });
});

describe("edge cases of the engine", () => {
  it("does not count the scenario build as simulated time on a real clock", async () => {
    let wall = 0;
    const sim = createSimulator({ clock: "real", wallClock: () => wall });
    // The build takes real time in reality; here the wall jumps while it runs.
    wall = 5000;
    await sim.ready;
    expect(sim.clock.now()).toBe(Date.parse("2026-11-21T12:00:00.000Z"));
    wall = 6000;
    expect(sim.clock.now()).toBe(Date.parse("2026-11-21T12:00:01.000Z"));
  });

  it("treats a client that goes away mid-body as no bug", async () => {
    const bugs: unknown[] = [];
    const sim = createSimulator({ clock: "manual", onError: (e) => bugs.push(e) });
    await sim.ready;
    const key = sim.manifest().users.owner?.apiKey as string;
    const ac = new AbortController();
    const body = new ReadableStream({
      pull(c) {
        ac.abort();
        c.error(new DOMException("gone", "AbortError"));
      },
    });
    const req = new Request("http://x/api/v1/api-keys", {
      method: "POST",
      body,
      duplex: "half",
      signal: ac.signal,
      headers: { authorization: `Bearer ${key}` },
    } as RequestInit);
    const res = await sim.fetch(req);
    expect(res.status).toBe(499);
    expect(bugs).toEqual([]);
    expect(sim.state.apiKeys.size).toBe(Object.keys(sim.manifest().users).length);
  });

  it("refuses seeds outside 32 bits", async () => {
    const h = await harness();
    for (const seed of [-1, 2 ** 32]) {
      expect((await h.call("POST", "/__sim/reset", { as: null, body: { seed } })).status).toBe(400);
    }
  });
});

describe("pure reads", () => {
  const detail = (h: Awaited<ReturnType<typeof harness>>) => `/api/v1/audiences/${h.id("audiences", "main")}`;

  it("are answered again from what was rendered, until the state may have changed", async () => {
    // Changes behind the core's back show reuse; the check of kept answers would call them stale.
    const h = await harness({ verifyKeptAnswers: false });
    // Held before the reads: changes made through it later are invisible to the core, which shows reuse.
    const state = h.sim.state;
    const first = await h.call("GET", detail(h));
    const audience = state.audiences.get(h.id("audiences", "main"));
    if (!audience) throw new Error("no main audience");
    const original = audience.name;
    audience.name = "Changed behind the core's back";
    const again = await h.call("GET", detail(h));
    expect(again.text).toBe(first.text);
    expect(again.body.data.name).toBe(original);
    // Taking hold of the state again counts as a change.
    expect(h.sim.state.audiences.size).toBeGreaterThan(0);
    expect((await h.call("GET", detail(h))).body.data.name).toBe("Changed behind the core's back");
  });

  it("are given by respond as the answer itself once kept, and always as a promise by handle", async () => {
    const h = await harness({ verifyKeptAnswers: false });
    const read = () =>
      new Request("http://localhost/api/v1/auth/me", {
        headers: { authorization: `Bearer ${h.key("owner")}` },
      });
    const first = await h.sim.respond(read());
    const kept = h.sim.respond(read());
    expect(kept).toBeInstanceOf(Answer);
    expect((kept as Answer).status).toBe(200);
    expect((kept as Answer).encoded().body).toEqual((first as Answer).encoded().body);
    const promised = h.sim.handle(read());
    expect(promised).toBeInstanceOf(Promise);
    expect((await promised).status).toBe(200);
  });

  it("stay through a change of API keys only, and go with any other change", async () => {
    const h = await harness({ verifyKeptAnswers: false });
    const state = h.sim.state;
    const first = await h.call("GET", detail(h));
    (state.audiences.get(h.id("audiences", "main")) as { name: string }).name = "Behind the core's back";
    const made = await h.call("POST", "/api/v1/api-keys", { body: { name: "rotated" } });
    expect(made.status).toBe(201);
    expect((await h.call("DELETE", `/api/v1/api-keys/${made.body.id}`)).status).toBe(204);
    expect((await h.call("GET", detail(h))).text).toBe(first.text);
    // The new key's listing is not kept: it shows the change at once.
    expect(
      (await h.call("GET", "/api/v1/api-keys")).body.some((k: { id: string }) => k.id === made.body.id),
    ).toBe(false);
    // Any other change (a member added) drops it.
    expect(
      (await h.call("POST", `${detail(h)}/members`, { body: { mindId: h.id("minds", "ownLoose") } })).status,
    ).toBe(200);
    expect((await h.call("GET", detail(h))).body.data.name).toBe("Behind the core's back");
  });

  it("are checked in tests: a reused answer that went stale throws", async () => {
    const h = await harness();
    const state = h.sim.state;
    await h.call("GET", detail(h));
    await h.call("GET", detail(h));
    // Taking hold of the state counts as a change; what is changed through a copy held before does not.
    (state.audiences.get(h.id("audiences", "main")) as { name: string }).name = "Behind the core's back";
    await expect(h.call("GET", detail(h))).rejects.toThrow(/kept answer went stale/);
  });

  it("see every write, job and clock move", async () => {
    const h = await harness();
    expect((await h.call("GET", detail(h))).body.data.name).not.toBe("Renamed");
    expect((await h.call("PUT", detail(h), { body: { name: "Renamed" } })).status).toBe(200);
    expect((await h.call("GET", detail(h))).body.data.name).toBe("Renamed");
    const before = (await h.call("GET", detail(h))).body.data.updatedAt;
    h.sim.advance(5_000);
    await h.call("PUT", detail(h), { body: { name: "Renamed" } });
    expect((await h.call("GET", detail(h))).body.data.updatedAt).not.toBe(before);
  });

  it("are kept per caller, after access checks, with fresh rate-limit headers", async () => {
    const h = await harness({ rateLimitPerMinute: 10 });
    const owner = await h.call("GET", detail(h));
    const admin = await h.call("GET", detail(h), { as: "admin" });
    expect(owner.body.data.currentMemberRole).toBe("owner");
    expect(admin.body.data.currentMemberRole).toBe("admin");
    const again = await h.call("GET", detail(h));
    expect(again.text).toBe(owner.text);
    expect(Number(again.headers.get("ratelimit-remaining"))).toBe(
      Number(owner.headers.get("ratelimit-remaining")) - 1,
    );
    const stranger = await h.call("GET", detail(h), { as: "solo" });
    expect(stranger.status).toBe(404);
  });
});

describe("requests that change nothing", () => {
  it("a preview leaves what pure reads rendered in place and is not recorded", async () => {
    const { h, recorded } = await recordingHarness({ verifyKeptAnswers: false });
    const main = `/api/v1/audiences/${h.id("audiences", "main")}`;
    const state = h.sim.state;
    const first = await h.call("GET", main);
    (state.audiences.get(h.id("audiences", "main")) as { name: string }).name = "Behind the core's back";
    const preview = await h.call("POST", `${main}/formations/preview`, {
      headers: { accept: "application/json" },
      body: { userInput: "by country", priorHypothesis: null },
    });
    expect(preview.status).toBe(200);
    // Had the preview counted as a change, the detail would be rendered anew and show the new name.
    expect((await h.call("GET", main)).text).toBe(first.text);
    expect(recorded.filter((r) => r.includes("/preview"))).toEqual([]);
    // A write still is recorded, and shows what changed.
    expect((await h.call("PUT", main, { body: { name: "Renamed" } })).status).toBe(200);
    expect(recorded.some((r) => r.startsWith("PUT ") && r.endsWith(main))).toBe(true);
  });
});

describe("worlds", () => {
  it("are the same, byte for byte, for the same scenario and seed", async () => {
    const texts = await Promise.all(
      [1, 2, 3].map(async () => {
        const sim = createSimulator({ clock: "manual", scenario: "default", seed: 7 });
        await sim.ready;
        return sim.snapshotText();
      }),
    );
    expect(new Set(texts).size).toBe(1);
  });
});
