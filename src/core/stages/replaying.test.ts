import { describe, expect, it } from "vitest";
import { call, PASSED, routed, through } from "../../../testing/stages.ts";
import type { RequestChange } from "../persistence/changes.ts";
import { Answer } from "../request/exchange.ts";
import type { Pages } from "../request/pages.ts";
import type { State } from "../world/state.ts";
import { grown } from "./compose.ts";
import { recordedCaller, replayedPages } from "./replaying.ts";

const change = (over: Partial<RequestChange> = {}): RequestChange => ({
  kind: "request",
  at: 5_000,
  method: "POST",
  url: "http://sim.test/checkout/s1/pay",
  keyId: null,
  headers: [],
  body: null,
  ...over,
});

describe("the replay's own stages", () => {
  it("recorded caller: the owner of the recorded key while both exist; nobody otherwise", async () => {
    const user = { id: "u1" };
    const key = { id: "k1", userId: "u1" };
    const state = { apiKeys: new Map([["k1", key]]), users: new Map([["u1", user]]) } as unknown as State;
    const stage = recordedCaller(() => state);
    const replaying = (keyId: string | null) =>
      grown(routed("GET", "/api/v1/auth/me"), { change: change({ keyId }) });
    expect((await through(stage, replaying("k1"))).passed?.caller).toEqual({ key, user });
    expect((await through(stage, replaying("k-gone"))).passed?.caller).toBeNull();
    expect((await through(stage, replaying(null))).passed?.caller).toBeNull();
  });

  it("pages: a recorded write to a page is made again at its instant; reads and the API pass on", async () => {
    const made: (number | undefined)[] = [];
    const page = new Answer(303, {}, null);
    const pages = {
      claims: (path: string) => path.startsWith("/checkout/"),
      change: async (_r: unknown, _u: unknown, at: number | undefined) => {
        made.push(at);
        return page;
      },
    } as unknown as Pages;
    const stage = replayedPages(pages);
    const replaying = (method: string, path: string) => grown(call(method, path), { change: change() });
    expect((await through(stage, replaying("POST", "/checkout/s1/pay"))).answer).toBe(page);
    expect(made).toEqual([5_000]);
    expect(await stage.run(replaying("GET", "/checkout/s1"), () => PASSED)).toBe(PASSED);
    expect(await stage.run(replaying("POST", "/api/v1/audiences"), () => PASSED)).toBe(PASSED);
  });
});
