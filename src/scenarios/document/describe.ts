/**
 * A built world written as a scenario document: what proves that the built-in scenarios (code) are
 * expressible in the format (scenarios/document/builtins.test.ts), and a starting point for a team that
 * wants a file shaped like one of them. Minds without a handle become "generated" groups, so the document
 * keeps every handle and property the design promises, not each generated persona's words.
 */

import type {
  Audience,
  GeneratedMembers,
  Hypothesis,
  MembersOf,
  ScenarioDocument,
  Training,
} from "../../contract/scenario-document.gen.ts";
import type { BuiltScenario } from "../../core/world/scenario.ts";
import type { AudienceRecord, MindRecord, MindTraining } from "../../core/world/state.ts";
import { FILTER_ATTRIBUTE_KEYS, isUploadedFileUrl } from "../../generators/index.ts";

export function describeWorld(built: BuiltScenario, name: string): ScenarioDocument {
  const { state, manifest } = built;
  const userHandle = new Map([...state.users.values()].map((u) => [u.id, u.handle]));
  const teamHandle = new Map([...state.teams.values()].map((t, i) => [t.id, `team${i + 1}`]));
  const mindHandle = new Map(Object.entries(manifest.minds).map(([h, m]) => [m.id, h]));
  const audienceHandle = new Map(Object.entries(manifest.audiences).map(([h, a]) => [a.id, h]));
  const who = (id: string) => userHandle.get(id) as string;

  const doc: ScenarioDocument = { name };
  doc.teams = Object.fromEntries(
    [...state.teams.values()].map((t) => [teamHandle.get(t.id) as string, { name: t.name }]),
  );
  doc.users = {};
  for (const u of state.users.values()) {
    const follows = u.following.flatMap((id) => audienceHandle.get(id) ?? []);
    doc.users[u.handle] = {
      name: u.name,
      email: u.email,
      plan: u.plan,
      subscriptionActive: u.subscriptionActive,
      ...(u.teamId ? { team: teamHandle.get(u.teamId) as string } : {}),
      ...(u.sso ? { sso: true } : {}),
      ...(u.staff ? { staff: true } : {}),
      ...(Object.keys(u.limits).length > 0 ? { limits: { ...u.limits } } : {}),
      apiKeys: built.keys
        .filter((k) => k.record.userId === u.id)
        .map((k) => ({
          name: k.record.name,
          key: k.raw,
          createdAt: new Date(k.record.createdAt).toISOString(),
        })),
      ...(follows.length > 0 ? { follows } : {}),
    };
  }
  // Minds with no handle in no Audience: each owner's, as generated groups.
  const inSome = new Set([...state.audiences.values()].flatMap((a) => a.memberIds));
  for (const m of state.minds.values()) {
    if (mindHandle.has(m.id) || inSome.has(m.id)) continue;
    const user = doc.users[who(m.ownerId)];
    if (!user) continue;
    const group = { generate: 1, public: m.isPublic, training: trainingName(m.training) };
    const last = user.looseMinds?.at(-1);
    if (last && last.public === group.public && last.training === group.training) last.generate++;
    else user.looseMinds = [...(user.looseMinds ?? []), group];
  }
  doc.minds = {};
  for (const [handle, { id }] of Object.entries(manifest.minds)) {
    const m = state.minds.get(id) as MindRecord;
    doc.minds[handle] = {
      owner: who(m.ownerId),
      public: m.isPublic,
      name: m.name,
      headline: m.headline,
      bio: m.bio,
      attributes: Object.fromEntries(FILTER_ATTRIBUTE_KEYS.map((k) => [k, m.attributes[k] ?? null])),
      training: trainingName(m.training),
    };
  }
  doc.audiences = {};
  for (const [handle, { id }] of Object.entries(manifest.audiences)) {
    const a = state.audiences.get(id) as AudienceRecord;
    const uploaded = a.grounding?.sources.some((s) => isUploadedFileUrl(s.url)) ?? false;
    const described: Audience = {
      owner: who(a.ownerId),
      name: a.name,
      topic: a.topic,
      public: a.isPublic,
      sharedWithTeam: a.isSharedWithTeam,
      linkSharing: a.isLinkSharingEnabled,
      members:
        sameAsEarlier(a, doc.audiences, manifest.audiences, state) ??
        members(a, state.minds, mindHandle, who),
      grounding: a.grounding === null ? false : uploaded ? { uploadedFile: true } : true,
      scoredValidation: a.validations.some((v) => v.status === "scored"),
    };
    if (a.collaborators.length > 0)
      described.collaborators = a.collaborators.map((c) => ({
        user: who(c.userId),
        role: c.role,
        accepted: c.status === "accepted",
      }));
    doc.audiences[handle] = described;
  }
  doc.formations = {};
  for (const [handle, { id }] of Object.entries(manifest.formations)) {
    const f = state.formations.get(id);
    if (!f || !("intent" in f.hypothesis)) continue;
    doc.formations[handle] = {
      audience: audienceHandle.get(f.audienceId) as string,
      creator: who(f.creatorId),
      name: f.name,
      visibility: f.visibility,
      hypothesis: f.hypothesis as Hypothesis,
      status: f.status,
    };
  }
  doc.studies = Object.fromEntries(
    [...state.studies.values()].map((s, i) => [
      `study${i + 1}`,
      {
        owner: who(s.ownerId),
        name: s.name,
        audiences: s.audienceIds.map((id) => audienceHandle.get(id) as string),
        members: s.memberUserIds.map(who),
      },
    ]),
  );
  doc.prices = Object.fromEntries(Object.entries(manifest.prices).map(([h, p]) => [h, { ...p }]));
  return doc;
}

/** An Audience whose members open another's already described (the same Minds, not others alike). */
function sameAsEarlier(
  a: AudienceRecord,
  described: Record<string, unknown>,
  handles: BuiltScenario["manifest"]["audiences"],
  state: BuiltScenario["state"],
): [MembersOf] | undefined {
  const n = a.memberIds.length;
  if (n === 0) return undefined;
  for (const handle of Object.keys(described)) {
    const other = state.audiences.get(handles[handle]?.id ?? "");
    if (other && other.memberIds.length >= n && a.memberIds.every((id, i) => other.memberIds[i] === id))
      return [{ membersOf: handle, ...(other.memberIds.length > n ? { count: n } : {}) }];
  }
  return undefined;
}

/** Handle Minds by handle; runs of other Minds of one owner, visibility and training as generated groups. */
function members(
  a: AudienceRecord,
  minds: Map<string, MindRecord>,
  mindHandle: Map<string, string>,
  who: (id: string) => string,
): (string | GeneratedMembers)[] {
  const out: (string | GeneratedMembers)[] = [];
  for (const id of a.memberIds) {
    const handle = mindHandle.get(id);
    if (handle !== undefined) {
      out.push(handle);
      continue;
    }
    const m = minds.get(id) as MindRecord;
    const group: GeneratedMembers = {
      generate: 1,
      owner: who(m.ownerId),
      public: m.isPublic,
      training: trainingName(m.training),
    };
    const last = out.at(-1);
    if (
      typeof last === "object" &&
      last.owner === group.owner &&
      last.public === group.public &&
      last.training === group.training
    )
      last.generate++;
    else out.push(group);
  }
  return out;
}

function trainingName(t: MindTraining): Training {
  if (t.beingRepaired) return "repairing";
  return t.status === "failed" ? "failed" : t.status;
}
