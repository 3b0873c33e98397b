/**
 * The control routes the dashboard stands on: the world by kind of record with the clock's queue, moving
 * the clock to the next queued job, disarming one fault rule, and the page itself.
 */
import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import type { WorldView } from "./world-view.ts";

describe("the dashboard's routes", () => {
  it("shows the world by kind of record, each row with the call that reads it", async () => {
    const h = await harness();
    const main = h.id("audiences", "main");
    await h.call("POST", `/api/v1/audiences/${main}/export`, { body: { kind: "brief", format: "docx" } });
    const r = await h.call<WorldView>("GET", "/__sim/world", { as: null, unchecked: true });
    expect(r.status).toBe(200);
    const section = (name: string) => r.body.sections.find((s) => s.name === name);
    expect(section("Audiences")?.rows.find((x) => x.id === main)).toMatchObject({
      cells: { name: h.audience("main").name, members: h.audience("main").memberIds.length },
      read: { path: `/api/v1/audiences/${main}`, userId: h.user("owner").id },
    });
    expect(section("Exports")?.rows).toEqual([
      expect.objectContaining({
        cells: expect.objectContaining({ kind: "brief", format: "docx", status: "queued" }),
      }),
    ]);
    expect(r.body.clock.jobs.length).toBeGreaterThan(0);
    // Every row's read is a call of the contract its user may make.
    for (const s of r.body.sections)
      for (const row of s.rows.filter((x) => x.read).slice(0, 3)) {
        const user = Object.values(h.sim.manifest().users).find((u) => u.id === row.read?.userId);
        if (!user) continue;
        expect(
          (await h.call("GET", row.read?.path as string, { as: user.apiKey })).status,
          row.read?.path,
        ).toBe(200);
      }
  });

  it("moves the clock to the next queued job, which runs", async () => {
    const h = await harness();
    const main = h.id("audiences", "main");
    await h.call("POST", `/api/v1/audiences/${main}/export`, { body: { kind: "brief", format: "docx" } });
    const before = h.sim.view();
    const next = before.clock.jobs[0];
    const moved = await h.call("POST", "/__sim/clock/advance", {
      as: null,
      body: { toNextJob: true },
      unchecked: true,
    });
    expect(moved.body.now).toBe(next?.at);
    expect(h.sim.view().clock.jobs).not.toContainEqual(next);
    const bad = await h.call("POST", "/__sim/clock/advance", {
      as: null,
      body: { toNextJob: "yes" },
      unchecked: true,
    });
    expect(bad.status).toBe(400);
  });

  it("disarms one fault rule by its ID, and serves the page without data", async () => {
    const h = await harness();
    const add = (status: number) =>
      h.call("POST", "/__sim/faults", {
        as: null,
        body: { path: "/api/v1/auth/me", status },
        unchecked: true,
      });
    const first = (await add(503)).body;
    await add(502);
    expect((await h.call("DELETE", `/__sim/faults/${first.id}`, { as: null, unchecked: true })).status).toBe(
      204,
    );
    expect(h.sim.faults.list().map((f) => f.status)).toEqual([502]);
    expect((await h.call("DELETE", `/__sim/faults/${first.id}`, { as: null, unchecked: true })).status).toBe(
      404,
    );
    expect((await h.call("GET", "/__sim/faults/1", { as: null, unchecked: true })).status).toBe(405);
    const page = await h.call("GET", "/__sim/", { as: null, unchecked: true });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).not.toContain(h.key("owner"));
  });
});
