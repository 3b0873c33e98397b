/**
 * The Audience parts of a scenario document (Audiences, their members and collaborators, Formations,
 * Studies) and the checks over the finished world: what the description allows an account to hold.
 */

import { LIMITS } from "../../contract/limits.ts";
import type { Audience, Formation, ScenarioDocument } from "../../contract/scenario-document.gen.ts";
import type { PeoplePlacement } from "../../core/world/manifest.ts";
import { memberCap, mindCap } from "../../core/world/plans.ts";
import type { AudienceRecord, UserRecord } from "../../core/world/state.ts";
import { countryOf, domainOf } from "../../generators/domains.ts";
import { populatedPrimaryBuckets } from "../../resources/formations/formation-classifier.ts";
import { type Applying, entries, generated, known, statedIdFits } from "./applying.ts";

export function applyAudiences(w: Applying, doc: ScenarioDocument): void {
  for (const [h, a] of entries(doc.audiences)) applyAudience(w, h, a);
}

function applyAudience(w: Applying, h: string, a: Audience): void {
  const { b } = w;
  const path = `/audiences/${h}`;
  const existing = w.audience(h);
  if (!existing && a.owner === undefined) {
    w.problem(`${path}/owner`, "is required for a new Audience");
    w.markBroken("audiences", h);
    return;
  }
  const owner =
    a.owner !== undefined
      ? w.needUser(a.owner, `${path}/owner`)
      : b.state.users.get((existing as AudienceRecord).ownerId);
  if (!owner) {
    w.markBroken("audiences", h);
    return;
  }
  if (!statedIdFits(w, "audiences", path, a.id, existing?.id)) {
    w.markBroken("audiences", h);
    return;
  }
  const members = a.members === undefined ? undefined : membersOf(w, h, a, owner, existing?.topic);
  const grounded = a.grounding !== undefined && a.grounding !== false;
  const uploaded = typeof a.grounding === "object" && a.grounding.uploadedFile === true;
  const audience =
    existing ??
    b.audience(h, owner, {
      ...(a.name !== undefined ? { name: a.name } : {}),
      ...(a.topic !== undefined ? { topic: a.topic } : {}),
      ...(members ? { members } : {}),
      isPublic: a.public ?? false,
      isSharedWithTeam: a.sharedWithTeam ?? false,
      linkSharing: a.linkSharing ?? false,
      withGrounding: grounded,
      withUploadedFile: uploaded,
      scoredValidation: a.scoredValidation ?? false,
      ...(a.id !== undefined ? { id: a.id } : {}),
    });
  if (existing) {
    existing.ownerId = owner.id;
    if (a.name !== undefined) existing.name = a.name;
    if (a.public !== undefined) existing.isPublic = a.public;
    if (a.sharedWithTeam !== undefined) existing.isSharedWithTeam = a.sharedWithTeam;
    if (a.linkSharing !== undefined) b.linkSharing(existing, h, a.linkSharing);
    if (members) existing.memberIds = members;
    if (a.grounding === false) {
      existing.grounding = null;
      existing.coverage = null;
    } else if (grounded) b.ground(existing, h, uploaded);
    if (a.scoredValidation === false)
      existing.validations = existing.validations.filter((v) => v.status !== "scored");
    else if (a.scoredValidation && !existing.validations.some((v) => v.status === "scored"))
      existing.validations.push(b.scoredValidation(b.rng.fork(`validation:${h}`)));
    b.manifest.audiences[h] = { id: existing.id, owner: owner.handle };
  }
  const people = placements(a, existing?.topic);
  const entry = b.manifest.audiences[h];
  if (entry && people.length > 0) entry.people = people;
  if (a.sharedWithTeam && owner.teamId === null)
    w.problem(`${path}/sharedWithTeam`, "needs an owner in a team (sharing with no team is TEAM_REQUIRED)");
  a.collaborators?.forEach((c, i) => {
    const at = `${path}/collaborators/${i}`;
    const user = w.needUser(c.user, `${at}/user`);
    if (!user) return;
    if (user.id === audience.ownerId) w.problem(`${at}/user`, "is the owner, who is never a collaborator");
    else if (audience.collaborators.some((x) => x.userId === user.id))
      w.problem(`${at}/user`, "is already a collaborator of this Audience");
    else b.collaborator(audience, user, c.role, c.accepted ?? true);
  });
}

/** Whom the generated members of `a` were drawn from: one entry per topic (the manifest's `people`). */
function placements(a: Audience, existingTopic: string | undefined): PeoplePlacement[] {
  const topics = new Set<string>();
  for (const m of a.members ?? []) {
    const topic =
      typeof m === "object" && "generate" in m ? (m.topic ?? a.topic ?? existingTopic) : undefined;
    if (topic !== undefined) topics.add(topic);
  }
  return [...topics].map((topic) => {
    const domain = domainOf(topic)?.name ?? null;
    return {
      topic,
      domain,
      country: countryOf(topic),
      ...(domain === null
        ? { fallback: "the topic names no field of work the generator knows: a general business mix" }
        : {}),
    };
  });
}

/**
 * The member list, as IDs: Mind handles, and Minds generated in place, in the order written. Generated ones
 * are made when first read (ScenarioBuilder.lazyMinds), unless their training is stated.
 */
function membersOf(
  w: Applying,
  h: string,
  a: Audience,
  owner: UserRecord,
  existingTopic: string | undefined,
): string[] {
  const out: string[] = [];
  a.members?.forEach((m, i) => {
    const path = `/audiences/${h}/members/${i}`;
    if (typeof m === "string") {
      const mind = w.mind(m);
      if (mind) out.push(mind.id);
      else w.dangling("minds", m, path, `names no Mind of this scenario (${known(w.b.manifest.minds)})`);
      return;
    }
    if ("membersOf" in m) {
      const other = w.audience(m.membersOf);
      if (!other)
        w.dangling("audiences", m.membersOf, `${path}/membersOf`, "names no Audience made before this one");
      else out.push(...other.memberIds.slice(0, m.count).filter((id) => w.b.state.minds.has(id)));
      return;
    }
    const by = m.owner === undefined ? owner : w.needUser(m.owner, `${path}/owner`);
    if (!by) return;
    const topic = m.topic ?? a.topic ?? existingTopic;
    const series = {
      label: `${h}:${i}`,
      fitTopic: true,
      ...(topic !== undefined ? { topic } : {}),
      ...(m.public !== undefined ? { isPublic: m.public } : {}),
      ...(m.missingRate !== undefined ? { missingRate: m.missingRate } : {}),
      ...(m.seed !== undefined ? { personaSeed: m.seed } : {}),
    };
    out.push(...generated(w, by, m.generate, series, m.training));
  });
  return out;
}

export function applyFormations(w: Applying, doc: ScenarioDocument): void {
  for (const [h, f] of entries(doc.formations)) if (!applyFormation(w, h, f)) w.markBroken("formations", h);
}

/** Makes one Formation; false when a problem (reported) kept it from being made. */
function applyFormation(w: Applying, h: string, f: Formation): boolean {
  const path = `/formations/${h}`;
  if (w.b.manifest.formations[h]) {
    w.problem(path, "is already a Formation of the extended scenario; give a new one another handle");
    return false;
  }
  if (!statedIdFits(w, "formations", path, f.id, undefined)) return false;
  const audience = w.audience(f.audience);
  if (!audience) {
    const message = `names no Audience of this scenario (${known(w.b.manifest.audiences)})`;
    w.dangling("audiences", f.audience, `${path}/audience`, message);
    return false;
  }
  const n = audience.memberIds.length;
  if (n < LIMITS.formationMembersMin || n > LIMITS.formationMembersMax) {
    w.problem(
      `${path}/audience`,
      `has ${n} members; a Formation sorts ${LIMITS.formationMembersMin} to ${LIMITS.formationMembersMax}`,
    );
    return false;
  }
  const owner = w.b.state.users.get(audience.ownerId);
  const creator = f.creator === undefined ? owner : w.needUser(f.creator, `${path}/creator`);
  if (!creator || !owner) return false;
  if (!canEdit(audience, creator, owner)) {
    w.problem(
      `${path}/creator`,
      "cannot edit this Audience: only its owner and collaborators create Formations",
    );
    return false;
  }
  const made = w.b.formation(h, audience, creator, {
    name: f.name,
    hypothesis: f.hypothesis,
    visibility: f.visibility ?? "shared",
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.id !== undefined ? { id: f.id } : {}),
  });
  if (made.status === "ready" && populatedPrimaryBuckets(made.subgroups) < 2)
    w.problem(
      `${path}/status`,
      "cannot be ready: sorting the members by this hypothesis fills fewer than two subgroups (leave status out, or say failed)",
    );
  return true;
}

function canEdit(a: AudienceRecord, user: UserRecord, owner: UserRecord): boolean {
  if (user.id === a.ownerId) return true;
  if (a.collaborators.some((c) => c.userId === user.id && c.status === "accepted")) return true;
  return a.isSharedWithTeam && owner.teamId !== null && user.teamId === owner.teamId;
}

export function applyStudies(w: Applying, doc: ScenarioDocument): void {
  for (const [h, s] of entries(doc.studies)) {
    const path = `/studies/${h}`;
    const owner = w.needUser(s.owner, `${path}/owner`);
    const audiences = s.audiences.flatMap((a, i) => {
      const found = w.audience(a);
      if (!found)
        w.dangling(
          "audiences",
          a,
          `${path}/audiences/${i}`,
          `names no Audience of this scenario (${known(w.b.manifest.audiences)})`,
        );
      return found ? [found] : [];
    });
    const members = (s.members ?? []).flatMap((u, i) => w.needUser(u, `${path}/members/${i}`) ?? []);
    if (owner) w.b.study(owner, s.name, audiences, members);
  }
}

/** What the description allows an account to hold, over the finished world (an extended one included). */
export function checkWorld(w: Applying): void {
  const { state, manifest } = w.b;
  const handleOf = new Map(Object.entries(manifest.audiences).map(([h, a]) => [a.id, h]));
  const owned = new Map<string, number>();
  // What is known of each Mind without making it: generated ones are made when first read.
  for (const id of state.minds.keys()) {
    const ownerId = w.b.mindFacts(id)?.ownerId;
    if (ownerId !== undefined) owned.set(ownerId, (owned.get(ownerId) ?? 0) + 1);
  }
  for (const u of state.users.values()) {
    const n = owned.get(u.id) ?? 0;
    if (n > mindCap(u))
      w.problem(
        `/users/${u.handle}`,
        `owns ${n} Minds, over the ${u.plan} plan's cap of ${mindCap(u)} (sparks)`,
      );
  }
  for (const a of state.audiences.values()) {
    const owner = state.users.get(a.ownerId);
    if (!owner) continue;
    const path = `/audiences/${handleOf.get(a.id) ?? a.id}/members`;
    const distinct = new Set(a.memberIds);
    if (distinct.size !== a.memberIds.length) w.problem(path, "names a Mind twice");
    if (distinct.size > memberCap(owner))
      w.problem(
        path,
        `holds ${distinct.size} members, over the owner's ${owner.plan} plan cap of ${memberCap(owner)}`,
      );
    const foreign = a.memberIds.findIndex((id) => {
      const m = w.b.mindFacts(id);
      return m !== undefined && m.ownerId !== a.ownerId && !m.isPublic;
    });
    if (foreign >= 0)
      w.problem(
        `${path}/${foreign}`,
        "is a private Mind of another user: members are the owner's Minds or public ones",
      );
  }
}
