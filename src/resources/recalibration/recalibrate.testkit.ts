/**
 * What the recalibration tests share: a fresh default world for the tests that call HTTP
 * (`withSimulator` in a describe), the calls they make by handle, and what a refused request must
 * leave alone.
 */
import { beforeEach } from "vitest";
import { type CallOptions, type Harness, harness } from "../../testing/harness.ts";

/** The world of the test that is running. */
export const world: { h: Harness } = { h: undefined as unknown as Harness };

/** The running test's harness: every read goes to the world its `beforeEach` made. */
export const h: Harness = new Proxy({} as Harness, { get: (_target, key) => Reflect.get(world.h, key) });

/** HTTP tests start from a fresh default scenario; the pure ones need none. */
export const withSimulator = () =>
  beforeEach(async () => {
    world.h = await harness();
  });

export const KEY = "x-service-idempotency-key";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const audience = (handle: string) => {
  const a = world.h.sim.state.audiences.get(world.h.id("audiences", handle));
  if (!a) throw new Error(`no audience ${handle}`);
  return a;
};
export const recalibrate = (handle: string, body: unknown, opts: CallOptions = {}) =>
  world.h.call("POST", `/api/v1/audiences/${world.h.id("audiences", handle)}/recalibrate`, { body, ...opts });
export const replay = (handle: string, key: string, body: unknown = {}) =>
  recalibrate(handle, body, { headers: { [KEY]: key } });
export const detail = async (handle: string) =>
  (await world.h.call("GET", `/api/v1/audiences/${world.h.id("audiences", handle)}`)).body.data;
export const progress = async (handle: string) =>
  (await world.h.call("GET", `/api/v1/audiences/${world.h.id("audiences", handle)}/progress`)).body.data;
export const ownedBy = (handle: string) =>
  [...world.h.sim.state.minds.values()].filter((m) => m.ownerId === world.h.id("users", handle)).length;

/** Everything a rejected request must leave alone. */
export const snapshot = () =>
  JSON.stringify({
    audiences: [...world.h.sim.state.audiences.values()],
    minds: world.h.sim.state.minds.size,
    extra: [...world.h.sim.state.extra.entries()].map(([k, v]) => [k, [...v.entries()]]),
    idempotency: [...world.h.sim.state.idempotency.keys()],
    jobs: world.h.sim.clock.pending().length,
  });
