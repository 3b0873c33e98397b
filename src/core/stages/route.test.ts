import { describe, expect, it } from "vitest";
import { bodyOf, refusal, stageWorld } from "../../../testing/stages.ts";
import { ownContract } from "../../contract/contract.ts";
import { Router } from "../router.ts";
import { route as routeStage } from "./route.ts";

const route = routeStage(new Router(ownContract.operations));

describe("the route stage", () => {
  it("finds the operation, its path parameters and prefix, and passes the call on", async () => {
    const w = await stageWorld();
    const call = w.call("GET", "/api/v1/audiences/abc");
    expect(route.run(call)).toBeUndefined();
    expect(call.op.operationId).toBe("getAudience");
    expect(call.params).toEqual({ audienceId: "abc" });
    expect(call.prefix).toBe("/api/v1");
    expect(call.headers["cache-control"]).toBe("private, no-store");
  });

  it("refuses a path no operation serves with 404, and a method it does not take with 405 and Allow", async () => {
    const w = await stageWorld();
    expect((await refusal(() => route.run(w.call("GET", "/api/v1/nothing-here")))).status).toBe(404);
    const wrong = await refusal(() => route.run(w.call("PATCH", "/api/v1/auth/me")));
    expect([wrong.status, wrong.headers.allow]).toEqual([405, "GET"]);
    const answer = await w.answer(w.call("PATCH", "/api/v1/auth/me"));
    expect(bodyOf(answer)).toMatchObject({ statusCode: 405, error: true, url: "/api/v1/auth/me" });
  });
});
