/**
 * The marketplace the built-in scenarios share: a publisher's public, grounded Audience `public` of
 * independent pharmacists, made of that many public Minds of the publisher's own, and a public Mind
 * `publicMind` on its own.
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

/**
 * The Audience and then the lone public Mind, one after the other. The default scenario makes its `large`
 * panel between the two (IDs follow the order things are made), so it calls the pieces itself.
 */
export function addMarketplace(b: ScenarioBuilder, publisher: UserRecord, members: number): void {
  addPublicPharmacists(b, publisher, members);
  b.mind("publicMind", publisher, { isPublic: true });
}
