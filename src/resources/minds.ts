/** Mind records made from generated personas: one shape for scenarios, recalibration growth and copies. */

import type { MindRecord, MindTraining } from "../core/world/state.ts";
import type { PersonaFixture } from "../generators/index.ts";

export const COMPLETED_TRAINING: Readonly<MindTraining> = {
  status: "completed",
  beingRepaired: false,
  failedForGood: false,
  attempts: 1,
  readyToChat: true,
  learning: false,
};

/** A new Mind that has not been trained yet: it cannot chat until its first run starts. */
export const UNTRAINED: Readonly<MindTraining> = {
  status: "queued",
  beingRepaired: false,
  failedForGood: false,
  attempts: 0,
  readyToChat: false,
  learning: true,
};

/** No knowledge yet: one frozen list for every new Mind. */
const NO_KNOWLEDGE = Object.freeze([]) as unknown as MindRecord["knowledge"];

/**
 * A Mind record over a persona. Mind records are replaced, never changed (src/core/world/template.ts), so the
 * persona's frozen profile and attributes are shared, not copied.
 */
export function mindFromPersona(
  p: PersonaFixture,
  o: { id: string; ownerId: string; isPublic: boolean; createdAt: number; training: Readonly<MindTraining> },
): MindRecord {
  return {
    id: o.id,
    ownerId: o.ownerId,
    isPublic: o.isPublic,
    name: p.name,
    headline: p.headline,
    bio: p.bio,
    systemPrompt: p.systemPrompt,
    profile: p.profile as unknown as MindRecord["profile"],
    attributes: p.attributes,
    profileImageUrl: p.profileImageUrl,
    knowledge: NO_KNOWLEDGE,
    training: { ...o.training },
    createdAt: o.createdAt,
  };
}

/** A URL- and ID-safe form of a label. */
export function slug(text: string, fallback = "group"): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || fallback
  );
}
