/**
 * The marketplace the built-in scenarios share: a publisher's public, grounded Audience `public` of
 * independent pharmacists, made of that many public Minds of the publisher's own.
 */
import type { UserRecord } from "../core/world/state.ts";
import type { ScenarioBuilder } from "./builder.ts";

const PHARMACISTS = "Independent pharmacists";

export function addPublicPharmacists(b: ScenarioBuilder, publisher: UserRecord, members: number): void {
  b.audience("public", publisher, {
    name: PHARMACISTS,
    topic: PHARMACISTS,
    members: b.minds(publisher, members, { isPublic: true, label: "public", topic: PHARMACISTS }),
    isPublic: true,
    withGrounding: true,
  });
}
