import { describe, expect, it } from "vitest";
import { bodyOf, stageWorld } from "../../../testing/stages.ts";
import type { Answer } from "../exchange.ts";

describe("the execute stage", () => {
  it("answers a pure read from its handler, kept and reused until the world changes", async () => {
    const w = await stageWorld();
    const path = `/api/v1/audiences/${w.life.world.manifest.audiences.main?.id}`;
    const read = () => w.answer(w.call("GET", path, { as: "owner" }));
    const first = await read();
    const again = await read();
    expect(first.status).toBe(200);
    expect((again as Answer).body).toBe((first as Answer).body);
    w.life.memo.touch();
    expect((await read()) as Answer).not.toBe(first);
    expect(bodyOf(again)).toEqual(bodyOf(first));
  });

  it("makes a change as one change: the handler's reply, with the rate-limit headers gathered before", async () => {
    const w = await stageWorld();
    const id = w.life.world.manifest.audiences.main?.id as string;
    const call = w.call("PUT", `/api/v1/audiences/${id}`, { as: "owner", body: '{"name":"Panel"}' });
    const renamed = (await w.answer(call)) as Answer;
    expect(renamed.status).toBe(200);
    expect(renamed.headers["ratelimit-limit"]).toBeDefined();
    expect(call.who.pure).toBe(false);
    expect(JSON.stringify(bodyOf(renamed))).toContain('"name":"Panel"');
    expect(w.life.world.state.audiences.get(id)?.name).toBe("Panel");
  });

  it("marks a pure read pure, so the journal and kept answers know it changed nothing", async () => {
    const w = await stageWorld();
    const call = w.call("GET", "/api/v1/auth/me", { as: "owner" });
    expect((await w.answer(call)).status).toBe(200);
    expect(call.who.pure).toBe(true);
  });
});
