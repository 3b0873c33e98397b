import { beforeEach, describe, expect, it } from "vitest";
import { expectError, type Harness, harness } from "../../../testing/harness.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

describe("GET /auth/me", () => {
  it("names the key's owner under both prefixes", async () => {
    for (const prefix of ["/api/v1", "/v1"]) {
      const r = await h.call("GET", `${prefix}/auth/me`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ id: h.id("users", "owner") });
    }
  });

  it.each([
    ["no header", {}],
    ["not Bearer", { authorization: `Basic ${"x".repeat(10)}` }],
    ["wrong prefix", { authorization: "Bearer sk_live_123" }],
    ["unknown key", { authorization: "Bearer service_doesnotexist" }],
    ["empty bearer", { authorization: "Bearer " }],
  ])("answers 401 Unauthorized for %s", async (_name, headers) => {
    const r = await h.call("GET", "/api/v1/auth/me", { as: null, headers });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({
      statusCode: 401,
      statusMessage: "Unauthorized",
      url: "/api/v1/auth/me",
      error: true,
    });
  });
});

describe("API keys", () => {
  it("lists each key's lastUsedAt as of the last request, a read with another key included", async () => {
    const created = await h.call("POST", "/api/v1/api-keys", { body: { name: "second" } });
    const listed = async () => {
      const r = await h.call("GET", "/api/v1/api-keys");
      return (r.body as { id: string; lastUsedAt: string | null }[]).find((k) => k.id === created.body.id);
    };
    expect((await listed())?.lastUsedAt).toBeNull();
    // A read that changes nothing else: the listing must not be an answer kept from before it.
    expect((await h.call("GET", "/api/v1/auth/me", { as: created.body.key })).status).toBe(200);
    expect((await listed())?.lastUsedAt).toBe(h.sim.manifest().now);
  });

  it("creates a key that is shown once, works at once, and is listed without its secret", async () => {
    const created = await h.call("POST", "/api/v1/api-keys", { body: { name: "  CI pipeline  " } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe("CI pipeline");
    expect(created.body.key).toMatch(/^service_/);
    const me = await h.call("GET", "/api/v1/auth/me", { as: created.body.key });
    expect(me.body.id).toBe(h.id("users", "owner"));
    const list = await h.call("GET", "/api/v1/api-keys");
    expect(list.text).not.toContain(created.body.key);
    expect(list.body.map((k: { id: string }) => k.id)).toContain(created.body.id);
    for (const k of list.body) expect(k).not.toHaveProperty("key");
  });

  it("lists newest first", async () => {
    await h.call("POST", "/api/v1/api-keys", { body: {} });
    h.sim.advance(1000);
    await h.call("POST", "/api/v1/api-keys", { body: { name: "later" } });
    const list = await h.call("GET", "/api/v1/api-keys");
    const times = list.body.map((k: { createdAt: string }) => Date.parse(k.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(list.body[0].name).toBe("later");
  });

  it.each([
    ["missing name", {}, null],
    ["null name", { name: null }, null],
    ["blank name", { name: "   " }, null],
    ["100 characters after trimming", { name: ` ${"a".repeat(100)} ` }, "a".repeat(100)],
  ])("stores %s", async (_n, body, stored) => {
    const r = await h.call("POST", "/api/v1/api-keys", { body });
    expect(r.status).toBe(201);
    expect(r.body.name).toBe(stored);
  });

  it("accepts an empty body", async () => {
    const r = await h.call("POST", "/api/v1/api-keys", {});
    expect(r.status).toBe(201);
    expect(r.body.name).toBeNull();
  });

  it.each([
    [{ name: 42 }, "name must be a string"],
    [{ name: ["a"] }, "name must be a string"],
    [{ name: "a".repeat(101) }, "name must be 100 characters or fewer"],
  ])("refuses %j with the description's message", async (body, message) => {
    const before = (await h.call("GET", "/api/v1/api-keys")).body.length;
    const r = await h.call("POST", "/api/v1/api-keys", { body });
    expectError(r, 400, message);
    expect((await h.call("GET", "/api/v1/api-keys")).body.length).toBe(before);
  });

  it("answers 400 Invalid JSON body for malformed JSON", async () => {
    const r = await h.call("POST", "/api/v1/api-keys", { raw: '{"name": ' });
    expectError(r, 400, "Invalid JSON body");
  });

  it("refuses key management without an active subscription, and key creation for SSO accounts", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/api-keys"],
      ["POST", "/api/v1/api-keys"],
      ["DELETE", `/api/v1/api-keys/c${"a".repeat(24)}`],
    ] as const) {
      const r = await h.call(method, path, { as: "outsider" });
      expectError(r, 403, "Forbidden");
    }
    const sso = await h.call("POST", "/api/v1/api-keys", { as: "sso", body: {} });
    expectError(sso, 403, "API keys are disabled for this SSO-linked account");
  });

  it("deletes a key, and the deleted key stops authenticating at once, even mid-request sequence", async () => {
    const created = (await h.call("POST", "/api/v1/api-keys", { body: { name: "temp" } })).body;
    // Answers rendered for the key's owner are kept, and a change of keys leaves them kept (keysOnly):
    // the deleted key must still be refused before any of them is reused.
    const detail = `/api/v1/audiences/${h.id("audiences", "main")}`;
    for (const path of ["/api/v1/auth/me", detail])
      expect((await h.call("GET", path, { as: created.key })).status).toBe(200);
    const del = await h.call("DELETE", `/api/v1/api-keys/${created.id}`, { as: created.key });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await h.call("GET", "/api/v1/auth/me", { as: created.key })).status).toBe(401);
    expect((await h.call("GET", detail, { as: created.key })).status).toBe(401);
    expect((await h.call("GET", detail)).status).toBe(200);
  });

  it.each([
    ["/api/v1/api-keys/", "API key ID is required"],
    ["/api/v1/api-keys/not-a-cuid", "Invalid API key ID format"],
    [`/api/v1/api-keys/c${"A".repeat(24)}`, "Invalid API key ID format"],
  ])("DELETE %s answers 400 %s", async (path, message) => {
    const r = await h.call("DELETE", path);
    expectError(r, 400, message);
  });

  it("answers 404 for a key of another account and leaves it working", async () => {
    const theirs = (await h.call("POST", "/api/v1/api-keys", { as: "solo", body: {} })).body;
    const r = await h.call("DELETE", `/api/v1/api-keys/${theirs.id}`);
    expectError(r, 404, "API key not found");
    expect((await h.call("GET", "/api/v1/auth/me", { as: theirs.key })).status).toBe(200);
  });
});
