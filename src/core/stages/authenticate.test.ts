import { describe, expect, it } from "vitest";
import { refusal, stageWorld } from "../../../testing/stages.ts";

describe("the authenticate stage", () => {
  it("makes the key's owner the caller and marks the key used at the world's now", async () => {
    const w = await stageWorld();
    w.life.advance(60_000);
    const call = w.call("GET", "/api/v1/auth/me", { as: "owner" });
    expect(await w.runTo("authenticate", call)).toBeUndefined();
    expect(call.caller?.user.id).toBe(w.life.world.manifest.users.owner?.id);
    expect(call.who.userId).toBe(call.caller?.user.id);
    expect(call.caller?.key.lastUsedAt).toBe(w.life.world.clock.now());
  });

  it("refuses a missing or unknown key with 401, with the rate-limit ceiling in the headers", async () => {
    const w = await stageWorld({ rateLimitPerMinute: 7 });
    for (const init of [{}, { authorization: "Bearer service_nobody" }, { authorization: "Basic x" }]) {
      const call = w.call("GET", "/api/v1/auth/me", init);
      expect((await refusal(() => w.runTo("authenticate", call))).status).toBe(401);
      expect(call.headers).toMatchObject({ "ratelimit-limit": "7", "ratelimit-remaining": "7" });
      expect(call.caller).toBeNull();
    }
  });

  it("asks no key of a public operation", async () => {
    const w = await stageWorld();
    const call = w.call("GET", "/_openapi.json");
    expect(await w.runTo("authenticate", call)).toBeUndefined();
    expect(call.caller).toBeNull();
  });
});
