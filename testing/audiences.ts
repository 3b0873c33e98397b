/**
 * What the Audience tests share: a fresh default world for every test (`freshWorldEachTest`), handles
 * into it by manifest name, and the check that a refused request changed nothing.
 */

import type { AudienceRecord, MindRecord, UserRecord } from "../src/core/world/state.ts";
import { MAIN_GENERATED_MEMBERS } from "../src/scenarios/default.ts";
import { type Harness, harnessEachTest } from "./harness.ts";

/** The running test's harness: every read goes to the world its `beforeEach` made. */
export const { h, fresh: freshWorldEachTest } = harnessEachTest();

export const MAIN_MEMBERS = MAIN_GENERATED_MEMBERS + 1;
export const path = (handle: string, suffix = ""): string =>
  `/api/v1/audiences/${h.id("audiences", handle)}${suffix}`;
export const audience = (handle: string): AudienceRecord => h.audience(handle);
export const user = (handle: string): UserRecord => h.user(handle);
export const mind = (id: string): MindRecord | undefined => h.sim.state.minds.get(id);
export const ownedBy = (handle: string): number => h.ownedBy(handle);
export const snapshot = (): string => h.snapshot();
export const refused = (...args: Parameters<Harness["refused"]>) => h.refused(...args);

export const SHARING = ["isSharedWithTeam", "isLinkSharingEnabled", "publicShareId"] as const;
