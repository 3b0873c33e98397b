import { describe, expect, it } from "vitest";
import { refusal, routed, through } from "../../../testing/stages.ts";
import { ownContract } from "../../contract/contract.ts";
import { ApiError } from "../errors.ts";
import type { Caller } from "../request/auth.ts";
import type { RequestContext, RouteSpec } from "../resource.ts";
import type { Services } from "../services.ts";
import { authorize } from "./authorize.ts";
import { grown } from "./compose.ts";

const owner = { user: { id: "u1" }, key: { id: "k1" } } as unknown as Caller;
/** Each service a value of its own, so the context can be shown to carry every one. */
const services = Object.fromEntries(
  ["state", "clock", "rng", "config", "schedule", "ids", "pageBase", "sha256", "memo"].map((name) => [
    name,
    { service: name },
  ]),
) as unknown as Services;
const asked: RequestContext[] = [];
const spec: RouteSpec = {
  handler: () => ({ status: 200, body: {} }),
  authorize: (ctx) => {
    asked.push(ctx);
    if (ctx.params.audienceId === "0f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a70")
      throw new ApiError(404, "Audience not found");
  },
};
const stage = authorize({
  routes: new Map([["listFormations", spec]]),
  validators: ownContract.validators,
  services: () => services,
  recording: false,
});
const formations = (id: string, query = "") =>
  grown(routed("GET", `/api/v1/audiences/${id}/formations${query}`), { caller: owner });

describe("the authorize stage", () => {
  it("hands the handler's context its checked parameters, caller and the world's services, then asks the route", async () => {
    const { passed } = await through(stage, formations("6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b", "?limit=5"));
    expect(passed?.spec).toBe(spec);
    expect(passed?.ctx.caller).toBe(owner.user);
    expect(passed?.ctx.queryValues).toMatchObject({ limit: 5 });
    for (const [name, service] of Object.entries(services))
      expect(passed?.ctx[name as keyof Services], name).toBe(service);
    expect(asked.at(-1)).toBe(passed?.ctx);
    expect(passed?.recorded).toBeNull();
  });

  it("refuses a malformed parameter with 400, and what the route says is out of reach as it says", async () => {
    expect(
      (await refusal(() => through(stage, formations("6f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a7b", "?limit=lots"))))
        .status,
    ).toBe(400);
    expect(
      (await refusal(() => through(stage, formations("0f1c2a9e-3b7d-4e5f-8a1b-2c3d4e5f6a70")))).status,
    ).toBe(404);
  });

  it("answers 501 for an operation no resource simulates", async () => {
    const me = grown(routed("GET", "/api/v1/auth/me"), { caller: owner });
    expect((await refusal(() => through(stage, me))).status).toBe(501);
  });
});
