import { describe, expect, it } from "vitest";
import { refusal, routed, through } from "../../../testing/stages.ts";
import type { Caller } from "../request/auth.ts";
import { authenticate } from "./authenticate.ts";

const owner = { user: { id: "u1" }, key: { id: "k1", lastUsedAt: null } } as unknown as Caller;
const stage = authenticate({
  callerOf: (h) => (h === "Bearer service_owner" ? owner : null),
  now: () => 1_000,
  ceiling: () => 7,
});

describe("the authenticate stage", () => {
  it("makes the key's owner the caller and marks the key used at the world's now", async () => {
    const { passed } = await through(
      stage,
      routed("GET", "/api/v1/auth/me", { authorization: "Bearer service_owner" }),
    );
    expect(passed?.caller).toBe(owner);
    expect(passed?.who.userId).toBe("u1");
    expect(owner.key.lastUsedAt).toBe(1_000);
  });

  it("refuses a missing or unknown key with 401, with the rate-limit ceiling in the headers", async () => {
    for (const authorization of [undefined, "Bearer service_nobody", "Basic x"]) {
      const c = routed("GET", "/api/v1/auth/me", authorization === undefined ? {} : { authorization });
      expect((await refusal(() => through(stage, c))).status).toBe(401);
      expect(c.headers).toMatchObject({ "ratelimit-limit": "7", "ratelimit-remaining": "7" });
      expect(c.who.userId).toBeNull();
    }
  });

  it("asks no key of a public operation", async () => {
    const { passed } = await through(stage, routed("GET", "/_openapi.json"));
    expect(passed?.caller).toBeNull();
  });
});
