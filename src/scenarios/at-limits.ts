/**
 * Accounts at their plan allowances: every next Mind or member is refused with a 403 PlanLimitError.
 * Good for testing upgrade prompts and plan-limit error handling.
 */
import { AUDIENCE_MEMBER_CAP, MIND_CAP } from "../core/world/plans.ts";
import { type CodeScenario, codeScenario, type ScenarioBuilder } from "./builder.ts";
import { addPriceCatalogue } from "./catalogue.ts";
import { addMarketplace } from "./marketplace.ts";

/** The premium owner's Minds: exactly the premium sparks cap. */
export const AT_LIMITS_OWNER_MINDS = MIND_CAP.premium;
export const AT_LIMITS_PREMIUM_MEMBER_CAP = AUDIENCE_MEMBER_CAP.premium;
export const AT_LIMITS_FREE_MEMBER_CAP = AUDIENCE_MEMBER_CAP.free;

function build(b: ScenarioBuilder): void {
  const owner = b.user("owner", { name: "Hannah Lindqvist", plan: "premium", subscriptionActive: true });
  const freebie = b.user("freebie", { name: "Diego Alvarez", plan: "free", subscriptionActive: false });
  const publisher = b.user("publisher", { name: "Aisha Bello", plan: "team", subscriptionActive: true });

  // The owner holds exactly the premium sparks cap: one named Mind plus the rest generated.
  const ownerMind = b.mind("ownerMind", owner, { topic: "Remote-first engineering managers" });
  const ownerMinds = [
    ownerMind,
    ...b.minds(owner, AT_LIMITS_OWNER_MINDS - 1, {
      label: "owner",
      topic: "Remote-first engineering managers",
    }),
  ];
  b.audience("full", owner, {
    name: "Remote engineering managers",
    topic: "Remote-first engineering managers",
    members: ownerMinds.slice(0, AT_LIMITS_PREMIUM_MEMBER_CAP),
    withGrounding: true,
  });
  // One below the cap: adding one Mind succeeds, adding two is refused.
  b.audience("nearCap", owner, {
    name: "Remote engineering managers (subset)",
    topic: "Remote-first engineering managers",
    members: ownerMinds.slice(0, AT_LIMITS_PREMIUM_MEMBER_CAP - 1),
  });
  b.audience("ownerEmpty", owner, { name: "Climate-tech founders", topic: "Climate-tech founders" });

  // A free user whose one Audience is at the free member cap (free Minds are unlimited).
  b.audience("freebieFull", freebie, {
    name: "Small-business owners in Latin America",
    topic: "Small-business owners in Latin America",
    members: b.minds(freebie, AT_LIMITS_FREE_MEMBER_CAP, {
      label: "freebieFull",
      topic: "Small-business owners in Latin America",
    }),
  });
  b.mind("freebieLoose", freebie);

  // Public Minds anyone may try to add to a full Audience.
  addMarketplace(b, publisher, 6);

  addPriceCatalogue(b);
}

export const atLimitsScenario: CodeScenario = codeScenario({
  name: "at-limits",
  description:
    "A premium `owner` who owns exactly 100 Minds (the sparks cap) with an Audience `full` at the 100-member " +
    "cap and `nearCap` one below it; a free `freebie` whose Audience `freebieFull` is at the free cap of 25; " +
    "a `publisher` with public Minds to try adding; and the checkout price catalogue.",
  build,
});
