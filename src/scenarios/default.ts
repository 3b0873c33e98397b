/**
 * The default scenario: every handle the README and the kit name (README, "Scenarios"), with exactly the properties it
 * states, plus a little more data where a tool benefits from it (a pending invitation, a Study).
 */

import type { FormationHypothesisRecord } from "../core/world/state.ts";
import { type CodeScenario, codeScenario, type ScenarioBuilder } from "./builder.ts";
import { addPriceCatalogue } from "./catalogue.ts";
import { addPublicPharmacists } from "./marketplace.ts";

export const MAIN_TOPIC = "B2B SaaS buyers in Europe";

/** Members of `main` generated in bulk; with `mainMember` the Audience has one more. */
export const MAIN_GENERATED_MEMBERS = 44;
export const PRIVATE_MEMBERS = 5;
export const PUBLIC_MEMBERS = 6;
export const LARGE_MEMBERS = 5200;
export const SOLO_MEMBERS = 4;

/**
 * Sorts `main` by buying role. The labels and definitions use the perspective words that generated
 * personas carry in their `perspective` attribute and in their bios ("acts as the evaluator when…"), and
 * avoid words every bio shares, so the classifier really matches members rather than guessing.
 */
export const BUYING_ROLE_HYPOTHESIS: FormationHypothesisRecord = {
  intent: "Split the audience by the part each person plays in a software purchase",
  subgroups: [
    {
      id: "decision-makers",
      label: "Decision makers",
      definition: "Decision maker or budget holder who signs off the purchase",
    },
    {
      id: "evaluators",
      label: "Evaluators and champions",
      definition: "Evaluator, champion or influencer shaping the shortlist",
    },
    {
      id: "end-users",
      label: "End users and skeptics",
      definition: "End user, skeptic or gatekeeper living with the outcome",
    },
  ],
};

/** Sorts by employer size, using the size words of generated headlines ("at a mid-sized …"). */
export const EMPLOYER_SIZE_HYPOTHESIS: FormationHypothesisRecord = {
  intent: "Compare smaller employers with large and global ones",
  subgroups: [
    {
      id: "smaller",
      label: "Small and mid-sized",
      definition: "Small or mid-sized employer with up to 500 staff",
    },
    {
      id: "larger",
      label: "Large and global",
      definition: "Large, enterprise or global employer with 501 or more staff",
    },
  ],
};

/** A hypothesis the scenario records as a failed build (its status is set, not classified). */
export const FAILED_HYPOTHESIS: FormationHypothesisRecord = {
  intent: "Separate members by favourite programming language",
  subgroups: [
    { id: "rustaceans", label: "Rustaceans", definition: "Writes Rust for fun" },
    { id: "gophers", label: "Gophers", definition: "Writes Go for fun" },
  ],
};

function build(b: ScenarioBuilder): void {
  const teamT = b.team("Northwind Insights");

  const owner = b.user("owner", {
    name: "Olivia Hartmann",
    plan: "premium",
    subscriptionActive: true,
    team: teamT,
  });
  const teammate = b.user("teammate", {
    name: "Marcus Chen",
    plan: "team",
    subscriptionActive: true,
    team: teamT,
  });
  const admin = b.user("admin", { name: "Priya Raman", plan: "premium", subscriptionActive: true });
  const member = b.user("member", { name: "Jonas Weber", plan: "premium", subscriptionActive: true });
  const outsider = b.user("outsider", { name: "Sam Okafor", plan: "free", subscriptionActive: false });
  b.user("sso", { name: "Elena Rossi", plan: "premium", subscriptionActive: true, sso: true });
  const solo = b.user("solo", { name: "Noah Fischer", plan: "premium", subscriptionActive: true });
  const publisher = b.user("publisher", { name: "Aisha Bello", plan: "team", subscriptionActive: true });
  const studyViewer = b.user("studyViewer", {
    name: "Lucas Moreau",
    plan: "free",
    subscriptionActive: false,
  });

  // main: team-shared, link-shared, grounded, with an uploaded file and a scored validation.
  const mainMember = b.mind("mainMember", owner, { topic: MAIN_TOPIC });
  const mainMinds = b.minds(owner, MAIN_GENERATED_MEMBERS, {
    topic: MAIN_TOPIC,
    label: "main",
    missingRate: 0.12,
  });
  const main = b.audience("main", owner, {
    name: "European B2B SaaS buyers",
    topic: MAIN_TOPIC,
    members: [...mainMinds.slice(0, 20), mainMember, ...mainMinds.slice(20)],
    isSharedWithTeam: true,
    linkSharing: true,
    withGrounding: true,
    withUploadedFile: true,
    scoredValidation: true,
  });
  b.collaborator(main, admin, "admin");
  b.collaborator(main, member, "member");
  // A pending invitation: never a collaborator until accepted, so listings must leave it out.
  b.collaborator(main, outsider, "member", false);
  b.formation("mainReady", main, owner, {
    name: "Buying roles",
    hypothesis: BUYING_ROLE_HYPOTHESIS,
    visibility: "shared",
  });
  b.formation("mainFailed", main, owner, {
    name: "Programming languages",
    hypothesis: FAILED_HYPOTHESIS,
    visibility: "shared",
    status: "failed",
  });
  b.formation("teammatePrivate", main, teammate, {
    name: "Employer size (draft)",
    hypothesis: EMPLOYER_SIZE_HYPOTHESIS,
    visibility: "private",
  });
  b.study(owner, "Q1 pricing page study", [main], [studyViewer]);

  // private: the owner's own, unshared, ungrounded, unvalidated.
  b.audience("private", owner, {
    name: "Hospital procurement shortlist",
    topic: "Hospital procurement leads",
    members: b.minds(owner, PRIVATE_MEMBERS, { topic: "Hospital procurement leads", label: "private" }),
  });

  b.audience("empty", owner, { name: "Climate-tech founders (not started)", topic: "Climate-tech founders" });

  // atCap: exactly at the owner's plan member cap, filled with the publisher's public Minds so that the
  // owner's own Mind count stays well under the premium sparks cap.
  const atCapMinds = b.lazyMinds(publisher, 100, {
    isPublic: true,
    label: "atCap",
    topic: "Remote-first engineering managers",
  });
  b.audience("atCap", owner, {
    name: "Remote engineering managers (full)",
    topic: "Remote-first engineering managers",
    members: atCapMinds,
    withGrounding: true,
  });

  b.mind("ownLoose", owner);

  // The publisher's marketplace Audiences and Minds.
  addPublicPharmacists(b, publisher, PUBLIC_MEMBERS);
  b.audience("large", publisher, {
    name: "Small-business owners in Latin America (panel)",
    topic: "Small-business owners in Latin America",
    // Listed, not read, while the world is built: each Mind is made when a request first reaches it.
    members: b.lazyMinds(publisher, LARGE_MEMBERS, { isPublic: true, label: "large" }),
    isPublic: true,
    withGrounding: true,
  });
  b.mind("publicMind", publisher, { isPublic: true });
  b.mind("foreignMind", publisher);

  b.audience("soloAudience", solo, {
    name: "Climate-tech founders",
    topic: "Climate-tech founders",
    members: b.minds(solo, SOLO_MEMBERS, { label: "soloAudience", topic: "Climate-tech founders" }),
    withGrounding: true,
  });

  addPriceCatalogue(b);
}

export const defaultScenario: CodeScenario = codeScenario({
  name: "default",
  description:
    "Every handle of the design's default table: a team owner with shared, private, empty and at-cap " +
    "Audiences, direct admin and member collaborators, an outsider, an SSO account, a publisher with " +
    "public and 5200-member Audiences, a Study viewer, and the checkout price catalogue.",
  build,
});
