/**
 * What the Audience tests share: a fresh default world for every test (`freshWorldEachTest`), handles
 * into it by manifest name, and the check that a refused request changed nothing.
 */
import { beforeEach, expect } from "vitest";
import { MAIN_GENERATED_MEMBERS } from "../../../scenarios/default.ts";
import type { AudienceRecord, MindRecord, UserRecord } from "../../core/state.ts";
import { type Harness, harness } from "../../testing/harness.ts";

/** The world of the test that is running. */
export const world: { h: Harness } = { h: undefined as unknown as Harness };

/** The running test's harness: every read goes to the world its `beforeEach` made. */
export const h: Harness = new Proxy({} as Harness, { get: (_target, key) => Reflect.get(world.h, key) });

export function freshWorldEachTest(): void {
  beforeEach(async () => {
    world.h = await harness();
  });
}

export const MAIN_MEMBERS = MAIN_GENERATED_MEMBERS + 1;
export const path = (handle: string, suffix = ""): string =>
  `/api/v1/audiences/${world.h.id("audiences", handle)}${suffix}`;
export const audience = (handle: string): AudienceRecord =>
  world.h.sim.state.audiences.get(world.h.id("audiences", handle))!;
export const user = (handle: string): UserRecord => world.h.sim.state.users.get(world.h.id("users", handle))!;
export const mind = (id: string): MindRecord | undefined => world.h.sim.state.minds.get(id);
export const ownedBy = (handle: string): number =>
  [...world.h.sim.state.minds.values()].filter((m) => m.ownerId === world.h.id("users", handle)).length;

/** Everything a request could change, except API keys' `lastUsedAt` (every authenticated call sets it). */
export function snapshot(): string {
  const s = world.h.sim.state;
  const table = <T>(m: Map<string, T>) => [...m.entries()];
  return JSON.stringify({
    users: table(s.users),
    teams: table(s.teams),
    minds: table(s.minds),
    audiences: table(s.audiences),
    studies: table(s.studies),
    formations: table(s.formations),
    idempotency: table(s.idempotency),
    extra: [...s.extra.entries()].map(([k, v]) => [k, table(v)]),
    jobs: world.h.sim.clock.pending(),
  });
}

/** Runs a request that must be refused and checks that it changed nothing. */
export async function refused(
  method: string,
  url: string,
  opts: Parameters<Harness["call"]>[2],
  status: number,
) {
  const before = snapshot();
  const r = await world.h.call(method, url, opts);
  expect(r.status).toBe(status);
  expect(snapshot()).toBe(before);
  return r;
}

export const SHARING = ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"] as const;
