import { describe, expect, it } from "vitest";
import { refusal, routed, through } from "../../../testing/stages.ts";
import { createRng } from "../../generators/prng.ts";
import { Faults } from "../request/faults.ts";
import { fault } from "./fault.ts";

function armed() {
  const faults = new Faults(createRng(1).fork("faults"));
  const waited: number[] = [];
  const stage = fault({ take: (m, p) => faults.take(m, p), sleep: async (ms) => void waited.push(ms) });
  return { faults, waited, stage };
}

describe("the fault stage", () => {
  it("answers an armed fault's status for its method and path", async () => {
    const { faults, stage } = armed();
    faults.add({ method: "GET", path: "/api/v1/auth/me", status: 503 });
    const taken = await refusal(() => through(stage, routed("GET", "/api/v1/auth/me")));
    expect(taken.status).toBe(503);
    expect(taken.message).toMatch(/^Injected fault \(rule /);
  });

  it("passes on what no fault matches, and waits a fault's delay before passing on", async () => {
    const { faults, waited, stage } = armed();
    expect((await through(stage, routed("GET", "/api/v1/auth/me"))).passed).not.toBeNull();
    faults.add({ method: "GET", path: "/api/v1/auth/me", delayMs: 250 });
    expect((await through(stage, routed("GET", "/api/v1/auth/me"))).passed).not.toBeNull();
    expect(waited).toEqual([250]);
  });
});
