import { describe, expect, it } from "vitest";
import { call, refusal, through } from "../../../testing/stages.ts";
import { ownContract } from "../../contract/contract.ts";
import { Router } from "../request/router.ts";
import { route as routeStage } from "./route.ts";

const route = routeStage(new Router(ownContract.operations));

describe("the route stage", () => {
  it("finds the operation, its path parameters and prefix, and passes the call on", async () => {
    const { passed } = await through(route, call("GET", "/api/v1/audiences/abc"));
    expect(passed?.op.operationId).toBe("getAudience");
    expect(passed?.params).toEqual({ audienceId: "abc" });
    expect(passed?.prefix).toBe("/api/v1");
    expect(passed?.headers["cache-control"]).toBe("private, no-store");
  });

  it("refuses a path no operation serves with 404, and a method it does not take with 405 and Allow", async () => {
    expect((await refusal(() => through(route, call("GET", "/api/v1/nothing-here")))).status).toBe(404);
    const wrong = await refusal(() => through(route, call("PATCH", "/api/v1/auth/me")));
    expect([wrong.status, wrong.headers.allow]).toEqual([405, "GET"]);
  });
});
