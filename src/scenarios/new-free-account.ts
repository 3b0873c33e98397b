/**
 * A brand-new free account: nothing of its own yet, a marketplace to browse, and the catalogue to upgrade
 * with. Good for empty states, onboarding and the checkout flow.
 */
import { type CodeScenario, codeScenario, type ScenarioBuilder } from "./builder.ts";
import { addPriceCatalogue } from "./catalogue.ts";
import { addMarketplace } from "./marketplace.ts";

export const NEW_FREE_PUBLIC_MEMBERS = 8;

function build(b: ScenarioBuilder): void {
  b.user("newbie", { name: "Grace Adeyemi", plan: "free", subscriptionActive: false, keyName: "First key" });
  const publisher = b.user("publisher", { name: "Aisha Bello", plan: "team", subscriptionActive: true });

  addMarketplace(b, publisher, NEW_FREE_PUBLIC_MEMBERS);

  addPriceCatalogue(b);
}

export const newFreeAccountScenario: CodeScenario = codeScenario({
  name: "new-free-account",
  description:
    "A new free-plan user `newbie` with no subscription, Audiences or Minds; a `publisher` with a " +
    "public Audience and a public Mind to browse; and the checkout price catalogue.",
  build,
});
