import { describe, expect, it } from "vitest";
import { call, PASSED, refusal, through } from "../../../testing/stages.ts";
import type { ControlDeps } from "../control/control.ts";
import { Answer } from "../request/exchange.ts";
import type { Pages } from "../request/pages.ts";
import { control, pages } from "./ways.ts";

/** Runs a step "in its turn", noting that it did. */
function turns() {
  const taken: string[] = [];
  const changing = async <T>(step: () => Promise<T>) => {
    taken.push("turn");
    return step();
  };
  return { taken, changing };
}

describe("the control plane's way", () => {
  const deps = { sim: {}, control: { tokens: [] } } as unknown as ControlDeps;

  it("passes on every path outside /__sim", async () => {
    const { changing } = turns();
    expect(
      (await through(control(deps, true, changing), call("GET", "/api/v1/__sim"))).passed,
    ).not.toBeNull();
  });

  it("answers 404 under /__sim when the control plane is off", async () => {
    const { changing } = turns();
    expect(
      (await refusal(() => through(control(deps, false, changing), call("GET", "/__sim/manifest")))).status,
    ).toBe(404);
  });

  it("takes /__sim itself; a write waits its turn, a read does not", async () => {
    const { taken, changing } = turns();
    const stage = control(deps, true, changing);
    expect((await through(stage, call("GET", "/__sim/nothing"))).answer?.status).toBe(404);
    expect(taken).toEqual([]);
    await through(stage, call("POST", "/__sim/nothing"));
    expect(taken).toEqual(["turn"]);
  });
});

describe("the pages' way", () => {
  const page = new Answer(200, { "content-type": "text/html" }, "<p>checkout</p>");
  const fake = (answers: boolean) =>
    ({
      claims: (path: string) => path.startsWith("/checkout/"),
      serve: async () => (answers ? page : null),
      change: async () => (answers ? page : null),
    }) as unknown as Pages;

  it("answers a path a page claims, a write in its turn; passes on the rest", async () => {
    const { taken, changing } = turns();
    const stage = pages(fake(true), changing);
    expect((await through(stage, call("GET", "/checkout/s1"))).answer).toBe(page);
    expect(taken).toEqual([]);
    expect((await through(stage, call("POST", "/checkout/s1"))).answer).toBe(page);
    expect(taken).toEqual(["turn"]);
    expect((await through(stage, call("GET", "/api/v1/auth/me"))).passed).not.toBeNull();
  });

  it("passes on a claimed path the page does not answer", async () => {
    const { changing } = turns();
    expect(await pages(fake(false), changing).run(call("GET", "/checkout/gone"), () => PASSED)).toBe(PASSED);
  });
});
