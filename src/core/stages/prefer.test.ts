import { describe, expect, it } from "vitest";
import { bodyOf, routed, through } from "../../../testing/stages.ts";
import { ownContract } from "../../contract/contract.ts";
import { grown } from "./compose.ts";
import { prefer } from "./prefer.ts";

const stage = prefer({
  delay: async () => {},
  seed: () => "1:0",
  generateBody: undefined,
  pointers: ownContract,
});
const me = (headers: Record<string, string> = {}) =>
  grown(routed("GET", "/api/v1/auth/me", { headers }), { caller: null });

describe("the prefer stage", () => {
  it("answers a documented status's example instead of the handler (Prefer: code=)", async () => {
    const { answer } = await through(stage, me({ prefer: "code=401" }));
    expect(answer?.status).toBe(401);
    expect(bodyOf(answer)).toMatchObject({ statusCode: 401, error: true });
  });

  it("passes on a request without Prefer, or with one that names no control", async () => {
    expect((await through(stage, me())).passed).not.toBeNull();
    expect((await through(stage, me({ prefer: "return=minimal" }))).passed).not.toBeNull();
  });
});
