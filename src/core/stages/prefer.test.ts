import { describe, expect, it } from "vitest";
import { bodyOf, stageWorld } from "../../../testing/stages.ts";

describe("the prefer stage", () => {
  it("answers a documented status's example instead of the handler (Prefer: code=)", async () => {
    const w = await stageWorld();
    const call = w.call("GET", "/api/v1/auth/me", { as: "owner", headers: { prefer: "code=401" } });
    const answer = await w.runTo("prefer", call);
    expect(answer?.status).toBe(401);
    expect(bodyOf(answer)).toMatchObject({ statusCode: 401, error: true });
  });

  it("passes on a request without Prefer, or with one that names no control", async () => {
    const w = await stageWorld();
    expect(await w.runTo("prefer", w.call("GET", "/api/v1/auth/me", { as: "owner" }))).toBeUndefined();
    const other = w.call("GET", "/api/v1/auth/me", { as: "owner", headers: { prefer: "return=minimal" } });
    expect(await w.runTo("prefer", other)).toBeUndefined();
  });
});
