/**
 * The request journal tests assert on: filters (method, path glob, status or class, user, since), newest
 * first with IDs and queries, headers and bodies (keys redacted, cut at a bound, for the newest requests
 * only), DELETE, and the same in process (`sim.requests`).
 */
import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import { Answer } from "../request/exchange.ts";
import type { JournalView } from "./journal.ts";
import { Journal } from "./journal.ts";
import { BODY_LIMIT, DETAIL_CAPACITY } from "./journal-detail.ts";

describe("the request journal", () => {
  it("filters by method, path, status, user and since, newest first", async () => {
    const h = await harness();
    const main = h.id("audiences", "main");
    await h.call("GET", "/api/v1/auth/me");
    await h.call("POST", `/api/v1/audiences/${main}/export`, { body: { kind: "brief", format: "pdf" } });
    await h.call("GET", `/api/v1/audiences/${main}/export-status?format=pdf`, { as: "teammate" });
    await h.call("GET", "/api/v1/audiences/00000000-0000-4000-8000-000000000000");
    const read = async (query: string): Promise<JournalView[]> => {
      const r = await h.call("GET", `/__sim/requests${query}`, { as: null });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    // "The app asked for one export."
    const exports = await read("?method=post&path=/api/v1/audiences/*/export");
    expect(exports).toEqual([
      expect.objectContaining({ method: "POST", path: `/api/v1/audiences/${main}/export`, status: 200 }),
    ]);
    expect((await read("?status=4xx")).map((e) => e.status)).toEqual([404]);
    expect((await read("?status=404")).map((e) => e.path)).toEqual([
      "/api/v1/audiences/00000000-0000-4000-8000-000000000000",
    ]);
    const teammate = await read("?user=teammate");
    expect(teammate.map((e) => e.query)).toEqual(["?format=pdf"]);
    expect(await read(`?user=${h.user("teammate").id}`)).toEqual(teammate);
    const all = await read("?path=/api/**");
    expect(all.map((e) => e.method)).toEqual(["GET", "GET", "POST", "GET"]);
    expect(all[0]?.id).toBeGreaterThan(all[1]?.id as number);
    const after = await read(`?since=${all[2]?.id}&path=/api/**`);
    expect(after.map((e) => e.id)).toEqual([all[0]?.id, all[1]?.id]);
    expect((await read(`?since=${encodeURIComponent(all[0]?.at as string)}&path=/api/**`)).length).toBe(4);
    for (const bad of ["?status=4", "?since=yesterday", "?limit=0", "?limit=1001"])
      expect((await h.call("GET", `/__sim/requests${bad}`, { as: null })).status).toBe(400);
    // An unknown handle is a mistake, named, not an empty list.
    const nobody = await h.call("GET", "/__sim/requests?user=nobody", { as: null });
    expect(nobody.status).toBe(400);
    expect(nobody.body.message).toMatch(
      /^user must be a handle \(owner, teammate, .*\) or a user ID, not "nobody"$/,
    );
  });

  it("names the caller of an answer that never reached authentication: an injected fault's, an unknown route's", async () => {
    const h = await harness();
    const armed = await h.call("POST", "/__sim/faults", {
      as: null,
      body: { path: "/api/v1/auth/me", status: 503, times: 1 },
    });
    expect(armed.status).toBe(201);
    expect((await h.call("GET", "/api/v1/auth/me", { as: "teammate", unchecked: true })).status).toBe(503);
    expect((await h.call("GET", "/api/v1/nowhere", { as: "member", unchecked: true })).status).toBe(404);
    const [unknown, fault] = h.sim.requests({ path: "/api/v1/**" });
    expect(fault).toMatchObject({ path: "/api/v1/auth/me", status: 503, userId: h.user("teammate").id });
    expect(unknown).toMatchObject({ path: "/api/v1/nowhere", status: 404, userId: h.user("member").id });
  });

  it("is emptied by DELETE, and answers the same in process", async () => {
    const h = await harness();
    await h.call("GET", "/api/v1/auth/me", { as: "teammate" });
    await h.call("GET", "/api/v1/api-keys");
    expect(() => h.sim.requests({ user: "nobody" })).toThrow(/^user must be a handle \(owner, /);
    expect(h.sim.requests({ user: "teammate" })).toEqual([
      expect.objectContaining({ method: "GET", path: "/api/v1/auth/me", status: 200, query: "" }),
    ]);
    expect(h.sim.requests({ path: "/api/v1/**" }).map((e) => e.path)).toEqual([
      "/api/v1/api-keys",
      "/api/v1/auth/me",
    ]);
    expect((await h.call("DELETE", "/__sim/requests", { as: null })).status).toBe(204);
    // A change through the control plane is journaled; its reads (a dashboard polling) are not.
    await h.call("GET", "/__sim/requests", { as: null });
    expect(h.sim.requests()).toEqual([
      expect.objectContaining({ method: "DELETE", path: "/__sim/requests", status: 204 }),
    ]);
    h.sim.clearRequests();
    expect(h.sim.requests()).toEqual([]);
  });

  it("keeps headers and bodies, keys and tokens redacted: the app exported once, as PDF", async () => {
    const h = await harness();
    const main = h.id("audiences", "main");
    await h.call("POST", `/api/v1/audiences/${main}/export`, { body: { kind: "brief", format: "pdf" } });
    const created = await h.call("POST", "/api/v1/api-keys", { body: { name: "ci" } });
    const [exported] = h.sim.requests({ method: "POST", path: "**/export" });
    expect(JSON.parse(exported?.request?.body ?? "null")).toEqual({ kind: "brief", format: "pdf" });
    expect(exported?.request?.headers["content-type"]).toBe("application/json");
    expect(exported?.response?.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(exported?.response?.body ?? "null")).toHaveProperty("data");
    const [keyed] = h.sim.requests({ path: "/api/v1/api-keys" });
    const shown = JSON.stringify(keyed);
    expect(shown).not.toContain(created.body.key);
    expect(shown).not.toContain(h.key("owner"));
    expect(keyed?.request?.headers.authorization).toBe("Bearer service_<redacted>");
    expect(JSON.parse(keyed?.response?.body ?? "null").key).toBe("service_<redacted>");
  });

  it("cuts a body at its bound and says so, and keeps detail for the newest requests only", () => {
    const journal = new Journal(10, 3);
    const entry = {
      at: "2026-01-01T00:00:00.000Z",
      method: "GET",
      path: "/p",
      status: 200,
      ms: 1,
      userId: null,
    };
    const big = `"${"é".repeat(BODY_LIMIT)}"`;
    for (let i = 0; i < 5; i++)
      journal.add(entry, "", new Headers({ accept: "*/*" }), null, new Answer(200, {}, big));
    const [newest, , third, fourth] = journal.find();
    expect(newest?.response).toMatchObject({ cut: true, size: big.length });
    expect(new TextEncoder().encode(newest?.response?.body ?? "").byteLength).toBeLessThanOrEqual(BODY_LIMIT);
    expect(big.startsWith(newest?.response?.body ?? "x")).toBe(true);
    expect(newest?.request).toMatchObject({ headers: { accept: "*/*" }, body: null, cut: false });
    expect(third?.response).toBeDefined();
    expect(fourth?.response).toBeUndefined();
    expect(fourth).toMatchObject({ method: "GET", path: "/p" });
    expect(DETAIL_CAPACITY).toBe(100);
  });

  it("keeps the newest entries past its capacity, each as it was added, and counts IDs on after a clear", () => {
    const journal = new Journal(4, 2);
    const entryOf = (i: number) => ({
      at: `2026-01-01T00:00:0${i}.000Z`,
      method: i % 2 ? "POST" : "GET",
      path: `/p/${i}`,
      status: 200 + i,
      ms: i / 4,
      userId: i % 3 ? `u${i}` : null,
    });
    const queryOf = (i: number): string => (i === 5 ? "?q=5" : "");
    const add = (i: number): void => journal.add(entryOf(i), queryOf(i));
    for (let i = 0; i < 6; i++) add(i);
    expect(journal.find()).toEqual(
      [5, 4, 3, 2].map((i) => ({ id: i + 1, ...entryOf(i), query: queryOf(i) })),
    );
    expect(journal.find({ since: 4 }).map((e) => e.id)).toEqual([6, 5]);
    journal.clear();
    expect(journal.find()).toEqual([]);
    add(7);
    expect(journal.find()).toMatchObject([{ id: 7, path: "/p/7", status: 207 }]);
  });
});
