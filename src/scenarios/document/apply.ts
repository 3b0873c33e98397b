/**
 * A checked scenario document made into a world: each part applied onto a builder (a fresh one, or one a
 * built-in scenario has already filled when the document `extends` it), collecting every problem the
 * schema cannot see (a handle that names nothing, a member over the owner's cap, a Formation on an Audience
 * without members, a state the description does not allow) with the JSON pointer it is at.
 *
 * Handles named again in an extending document change the built-in's record; new handles add records.
 */

import type { Attributes, Mind, ScenarioDocument, User } from "../../contract/scenario-document.gen.ts";
import type { ScenarioProblem } from "../../core/world/scenario.ts";
import type { FilterAttributes } from "../../generators/index.ts";
import type { ScenarioBuilder } from "../builder.ts";
import { addPriceCatalogue } from "../catalogue.ts";
import { applyAudiences, applyFormations, applyStudies, checkWorld } from "./apply-audiences.ts";
import { checkSetup } from "./apply-setup.ts";
import { Applying, entries, generated, known, statedIdFits, trainingOf } from "./applying.ts";

/** `broken`: handles (`users/dev`) left out of `doc` for a problem already reported; see Applying. */
export function applyDocument(
  b: ScenarioBuilder,
  doc: ScenarioDocument,
  extended: boolean,
  broken: readonly string[] = [],
): ScenarioProblem[] {
  const w = new Applying(b, broken);
  for (const [h, t] of entries(doc.teams)) {
    const team = b.teams.get(h);
    if (team) team.name = t.name;
    else b.team(t.name, h);
  }
  for (const [h, u] of entries(doc.users)) applyUser(w, h, u);
  for (const [h, u] of entries(doc.users)) applyLooseMinds(w, h, u);
  for (const [h, m] of entries(doc.minds)) applyMind(w, h, m);
  applyAudiences(w, doc);
  for (const [h, u] of entries(doc.users)) applyFollows(w, h, u);
  applyFormations(w, doc);
  applyStudies(w, doc);
  if (doc.prices) applyPrices(w, doc);
  else if (!extended) addPriceCatalogue(b);
  checkWorld(w);
  checkSetup(w, doc);
  return w.problems;
}

function applyUser(w: Applying, h: string, u: User): void {
  const { b } = w;
  const path = `/users/${h}`;
  const existing = w.user(h);
  const team = u.team === undefined ? undefined : b.teams.get(u.team);
  if (u.team !== undefined && !team)
    w.dangling(
      "teams",
      u.team,
      `${path}/team`,
      `names no team of this scenario (${known(Object.fromEntries(b.teams))})`,
    );
  const plan = u.plan ?? existing?.plan ?? "free";
  const active =
    u.subscriptionActive ?? (u.plan !== undefined ? plan !== "free" : existing?.subscriptionActive) ?? false;
  if (plan === "free" && active)
    w.problem(
      `${path}/subscriptionActive`,
      "must be false on the free plan: a free account has no subscription",
    );
  const keys = u.apiKeys?.map((k) => ({
    name: k.name === undefined ? "Scenario key" : k.name,
    ...(k.key !== undefined ? { raw: k.key } : {}),
    ...(k.createdAt !== undefined ? { createdAt: Date.parse(k.createdAt) } : {}),
  }));
  u.apiKeys?.forEach((k, i) => {
    if (k.key !== undefined && b.pendingKeys.some((p) => p.raw === k.key && p.record.userId !== existing?.id))
      w.problem(`${path}/apiKeys/${i}/key`, "is already a key of another user of this scenario");
    if (k.key !== undefined && u.apiKeys?.findIndex((o) => o.key === k.key) !== i)
      w.problem(`${path}/apiKeys/${i}/key`, "is given twice");
  });
  if (!existing) {
    b.user(h, {
      name: u.name ?? h,
      plan,
      subscriptionActive: active,
      team: team ?? null,
      ...(u.sso !== undefined ? { sso: u.sso } : {}),
      ...(u.staff !== undefined ? { staff: u.staff } : {}),
      ...(u.limits !== undefined ? { limits: { ...u.limits } } : {}),
      ...(u.email !== undefined ? { email: u.email } : {}),
      ...(keys ? { keys } : {}),
    });
    return;
  }
  Object.assign(existing, {
    plan,
    subscriptionActive: active,
    ...(u.name !== undefined ? { name: u.name } : {}),
    ...(u.email !== undefined ? { email: u.email } : {}),
    ...(u.sso !== undefined ? { sso: u.sso } : {}),
    ...(u.staff !== undefined ? { staff: u.staff } : {}),
    ...(u.limits !== undefined ? { limits: { ...u.limits } } : {}),
  });
  if (team && team.id !== existing.teamId) {
    const old = existing.teamId === null ? undefined : b.state.teams.get(existing.teamId);
    if (old) old.memberIds = old.memberIds.filter((id) => id !== existing.id);
    team.memberIds.push(existing.id);
    existing.teamId = team.id;
  }
  const entry = b.manifest.users[h];
  if (!entry) return;
  Object.assign(entry, { plan, subscriptionActive: active, teamId: existing.teamId, sso: existing.sso });
  if (keys) {
    // The keys given replace the built-in user's.
    for (let i = b.pendingKeys.length - 1; i >= 0; i--)
      if (b.pendingKeys[i]?.record.userId === existing.id) b.pendingKeys.splice(i, 1);
    const raws = keys.map((k) => b.apiKey(existing, k.name, k.createdAt ?? b.ago(30), k.raw));
    entry.apiKey = raws[0] ?? entry.apiKey;
  }
}

/** Generated Minds a user owns in no Audience. */
function applyLooseMinds(w: Applying, h: string, u: User): void {
  const owner = w.user(h);
  if (!owner) return;
  u.looseMinds?.forEach((g, i) => {
    const series = {
      label: `${h}:loose:${i}`,
      fitTopic: true,
      ...(g.topic !== undefined ? { topic: g.topic } : {}),
      ...(g.public !== undefined ? { isPublic: g.public } : {}),
      ...(g.missingRate !== undefined ? { missingRate: g.missingRate } : {}),
      ...(g.seed !== undefined ? { personaSeed: g.seed } : {}),
    };
    generated(w, owner, g.generate, series, g.training);
  });
}

function applyMind(w: Applying, h: string, m: Mind): void {
  const { b } = w;
  const path = `/minds/${h}`;
  const owner = w.needUser(m.owner, `${path}/owner`);
  if (!owner) {
    w.markBroken("minds", h);
    return;
  }
  const existing = w.mind(h);
  if (!statedIdFits(w, "minds", path, m.id, existing?.id)) {
    w.markBroken("minds", h);
    return;
  }
  const mind =
    existing ??
    b.mind(h, owner, {
      fitTopic: true,
      ...(m.id !== undefined ? { id: m.id } : {}),
      ...(m.public !== undefined ? { isPublic: m.public } : {}),
      ...(m.topic !== undefined ? { topic: m.topic } : {}),
    });
  mind.ownerId = owner.id;
  if (m.public !== undefined) mind.isPublic = m.public;
  if (m.name !== undefined) mind.name = m.name;
  if (m.headline !== undefined) mind.headline = m.headline;
  if (m.bio !== undefined) mind.bio = m.bio;
  if (m.attributes !== undefined) mind.attributes = withAttributes(mind.attributes, m.attributes);
  if (m.training !== undefined) mind.training = trainingOf(m.training);
  b.manifest.minds[h] = { id: mind.id, owner: owner.handle, public: mind.isPublic };
}

/** The persona's attributes with the given ones in their place; null removes a value. */
function withAttributes(base: FilterAttributes, given: Attributes): FilterAttributes {
  const out: Record<string, string> = { ...(base as Record<string, string>) };
  for (const [k, v] of Object.entries(given) as [string, string | null | undefined][]) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out as FilterAttributes;
}

function applyFollows(w: Applying, h: string, u: User): void {
  const user = w.user(h);
  if (!user) return;
  u.follows?.forEach((a, i) => {
    const path = `/users/${h}/follows/${i}`;
    const audience = w.audience(a);
    if (!audience)
      w.dangling(
        "audiences",
        a,
        path,
        `names no Audience of this scenario (${known(w.b.manifest.audiences)})`,
      );
    else if (!audience.isPublic) w.problem(path, "is not public: only a public Audience can be followed");
    else if (!user.following.includes(audience.id)) user.following.push(audience.id);
  });
}

function applyPrices(w: Applying, doc: ScenarioDocument): void {
  const { b } = w;
  // The prices given are the whole catalogue: an extended scenario's are dropped.
  b.clearPrices();
  const ids = new Map<string, string>();
  for (const [h, p] of entries(doc.prices)) {
    const path = `/prices/${h}`;
    const plan = p.plan ?? null;
    if (p.kind === "subscription" && plan === null)
      w.problem(`${path}/plan`, "is required for a subscription: premium or team");
    if (p.kind === "credits" && plan !== null) w.problem(`${path}/plan`, "must be null for credits");
    const made = b.price(h, {
      ...(p.id !== undefined ? { id: p.id } : {}),
      kind: p.kind,
      plan,
      currency: p.currency,
      unitAmount: p.unitAmount,
      name: p.name,
    });
    const twin = ids.get(made.id);
    if (twin !== undefined) w.problem(`${path}/id`, `is also the ID of price ${twin}`);
    ids.set(made.id, h);
  }
}
