import { describe, expect, it } from "vitest";
import { refusal, stageWorld } from "../../../testing/stages.ts";

describe("the body stage", () => {
  it("reads a JSON body, takes it for the handler and keeps its text for the journal", async () => {
    const w = await stageWorld();
    const call = w.call("PUT", `/api/v1/audiences/${w.life.world.manifest.audiences.main?.id}`, {
      as: "owner",
      body: '{"name":"Panel"}',
    });
    expect(await w.runTo("body", call)).toBeUndefined();
    expect(call.ctx.body).toEqual({ name: "Panel" });
    expect(call.raw).toEqual({ present: true, text: '{"name":"Panel"}' });
    expect(call.who.body).toBe('{"name":"Panel"}');
  });

  it("refuses a body that is not JSON (400), of another media type (415), or against the schema (400)", async () => {
    const w = await stageWorld();
    const as = "owner";
    const path = `/api/v1/audiences/${w.life.world.manifest.audiences.main?.id}`;
    const broken = w.call("PUT", path, { as, body: "{name" });
    expect((await refusal(() => w.runTo("body", broken))).status).toBe(400);
    const text = w.call("PUT", `/api/v1/audiences/${w.life.world.manifest.audiences.main?.id}`, {
      as,
      body: "x",
      headers: { "content-type": "text/plain" },
    });
    expect((await refusal(() => w.runTo("body", text))).status).toBe(415);
    const nameless = w.call("PUT", path, { as, body: "{}" });
    expect((await refusal(() => w.runTo("body", nameless))).status).toBe(400);
  });

  it("passes a read on at once, with nothing read", async () => {
    const w = await stageWorld();
    const call = w.call("GET", "/api/v1/auth/me", { as: "owner" });
    await w.runTo("authorize", call);
    expect(w.stage("body").run(call)).toBeUndefined();
    expect(call.raw.present).toBe(false);
  });
});
