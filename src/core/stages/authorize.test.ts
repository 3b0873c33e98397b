import { describe, expect, it } from "vitest";
import { refusal, stageWorld } from "../../../testing/stages.ts";

describe("the authorize stage", () => {
  it("hands the handler's context its checked parameters and caller", async () => {
    const w = await stageWorld();
    const main = w.life.world.manifest.audiences.main?.id;
    const call = w.call("GET", `/api/v1/audiences/${main}/formations?limit=5`, { as: "owner" });
    expect(await w.runTo("authorize", call)).toBeUndefined();
    expect(call.ctx.caller?.id).toBe(w.life.world.manifest.users.owner?.id);
    expect(call.ctx.queryValues).toMatchObject({ limit: 5 });
    expect(call.spec.handler).toBeTypeOf("function");
  });

  it("refuses a malformed parameter with 400, and what the caller cannot reach with 404", async () => {
    const w = await stageWorld();
    const main = w.life.world.manifest.audiences.main?.id;
    const bad = w.call("GET", `/api/v1/audiences/${main}/formations?limit=lots`, { as: "owner" });
    expect((await refusal(() => w.runTo("authorize", bad))).status).toBe(400);
    const audience = w.life.world.manifest.audiences.private?.id;
    const foreign = w.call("GET", `/api/v1/audiences/${audience}`, { as: "outsider" });
    expect((await refusal(() => w.runTo("authorize", foreign))).status).toBe(404);
  });
});
