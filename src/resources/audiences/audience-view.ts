/**
 * How an Audience is shown (description, "Resources and their fields": Audience and AudienceDetail).
 *
 * `audienceDetail` is the GET form: member Minds with their cohort profiles, the caller's role, grounding,
 * sources, member-derived baselines and the recalibration state. The sharing fields go only to
 * collaborators; public and Study-cascade viewers get uploaded-file URLs redacted to null.
 * `audienceSummary` is the PUT form (the `Audience` schema), which only collaborators ever receive.
 */

import { type Decoded, EncodedJson, encodedBy, KeptByRecords } from "../../core/request/encoded-json.ts";
import type { AudienceRecord, MindRecord, State } from "../../core/world/state.ts";
import type { BaselineDistribution, Chart, FilterAttributes } from "../../generators/index.ts";
import { baselineDistributions, isUploadedFileUrl } from "../../generators/index.ts";
import { type AudienceRole, COLLABORATOR_ROLES } from "../access.ts";
import { iso } from "../time.ts";

/** A member as `members=preview` shows it: a bounded display profile, no reviewed-field metadata. */
export interface MindPreview {
  id: string;
  name: string;
  headline: string;
  profileImageUrl: string | null;
  attributes: FilterAttributes;
}

/** A member with its complete cohort profile. */
export interface MindDetail extends MindPreview {
  bio: string;
  profile: Record<string, unknown>;
  /** Simulator decision: the profile fields a reviewer checked, as dotted field names. */
  reviewedFields: string[];
}

interface SharingFields {
  isSharedWithTeam: boolean;
  isLinkSharingEnabled: boolean;
  publicShareId: string | null;
}

export interface AudienceDetailView extends Partial<SharingFields> {
  id: string;
  name: string;
  mindCount: number;
  minds: EncodedJson<MindPreview[]> | EncodedJson<MindDetail[]>;
  isPublic: boolean;
  currentMemberRole: AudienceRole;
  grounding: EncodedJson<{ charts: unknown[]; sources: { title: string; url: string | null }[] }> | null;
  sources: {
    brief: string;
    adjustments: string[];
    keywords: string[];
    links: { url: string; title: string }[];
    files: { name: string; url: string | null; sizeBytes: number; contentType: string }[];
  };
  baselineDistributions: EncodedJson<BaselineDistribution[]>;
  calibration: { active: boolean };
  createdAt: string;
  updatedAt: string;
}

export interface AudienceSummaryView extends SharingFields {
  id: string;
  name: string;
  mindCount: number;
  minds: EncodedJson<MindPreview[]>;
  createdAt: string;
  updatedAt: string;
  isPublic: boolean;
  currentMemberRole: Exclude<AudienceRole, "public_viewer">;
}

/** The member records of an Audience, in the order they joined; IDs that name no Mind are skipped. */
export function membersOf(state: State, audience: AudienceRecord): MindRecord[] {
  const out: MindRecord[] = [];
  for (const id of audience.memberIds) {
    const m = state.minds.get(id);
    if (m) out.push(m);
  }
  return out;
}

// Views share the records' attributes and profiles rather than copying them: a view is serialized as soon
// as it is built and never changed (a deep copy of every member's profile was a fifth of the cost of a
// full audience read; spreading a copy of each member took a third of what remained).

export function mindPreview(m: MindRecord): MindPreview {
  return {
    id: m.id,
    name: m.name,
    headline: m.headline,
    profileImageUrl: m.profileImageUrl,
    attributes: m.attributes,
  };
}

export function mindDetail(m: MindRecord): MindDetail {
  return {
    ...mindPreview(m),
    bio: m.bio,
    profile: m.profile,
    reviewedFields: reviewedFields(m),
  };
}

// A Mind record is never changed in place (a change is a new record: src/core/world/state.ts), so its views are
// encoded once per record and laid as bytes into every answer that lists it (src/core/request/encoded-json.ts).
const previews = encodedBy(mindPreview);
const details = encodedBy(mindDetail);

// A chart is complete when it joins an Audience's grounding (charts are added, never changed), and its
// data's shares are most of what stringifying a detail's grounding cost.
const charts = encodedBy((chart: Chart) => chart);

function reviewedFields(m: MindRecord): string[] {
  const reviewed: string[] = [];
  if ((m.name ?? "") !== "") reviewed.push("name");
  if ((m.headline ?? "") !== "") reviewed.push("headline");
  if ((m.bio ?? "") !== "") reviewed.push("bio");
  const { profile } = m;
  for (const k of Object.keys(profile)) {
    const v = profile[k];
    if (v !== undefined && v !== null) reviewed.push(`profile.${k}`);
  }
  return reviewed;
}

// Views of the member list as a whole depend on the member records alone, and a detail is read far more
// often than its members change: each is made once per member list (the latest two of each Audience).
const baselines = new KeptByRecords((members: readonly MindRecord[]) =>
  EncodedJson.of(baselineDistributions(members)),
);
const previewList = new KeptByRecords((members: readonly MindRecord[]) =>
  EncodedJson.array(members.map((m) => previews.of(m))).joined(),
);
const detailList = new KeptByRecords((members: readonly MindRecord[]) =>
  EncodedJson.array(members.map((m) => details.of(m))).joined(),
);

const redact = (url: string, hide: boolean): string | null => (hide && isUploadedFileUrl(url) ? null : url);

export function audienceDetail(
  state: State,
  audience: AudienceRecord,
  role: AudienceRole,
  opts: { preview: boolean },
): AudienceDetailView {
  const members = membersOf(state, audience);
  const hide = role === "public_viewer";
  const g = audience.grounding;
  const s = audience.sources;
  const view: AudienceDetailView = {
    id: audience.id,
    name: audience.name,
    mindCount: members.length,
    minds: opts.preview ? previewList.of(audience, members) : detailList.of(audience, members),
    isPublic: audience.isPublic,
    currentMemberRole: role,
    grounding: g
      ? EncodedJson.object({
          charts: g.charts.map((c) => charts.of(c)),
          sources: g.sources.map((src) => ({ ...src, url: redact(src.url, hide) })),
        })
      : null,
    sources: {
      brief: s.brief,
      adjustments: [...s.adjustments],
      keywords: [...s.keywords],
      links: s.links.map((l) => ({ ...l })),
      files: s.files.map((f) => ({ ...f, url: redact(f.url, hide) })),
    },
    baselineDistributions: baselines.of(audience, members),
    calibration: { active: audience.calibrationActive },
    createdAt: iso(audience.createdAt),
    updatedAt: iso(audience.updatedAt),
  };
  if (COLLABORATOR_ROLES.has(role)) Object.assign(view, sharingFields(audience));
  return view;
}

export function audienceSummary(
  state: State,
  audience: AudienceRecord,
  role: Exclude<AudienceRole, "public_viewer">,
): AudienceSummaryView {
  const members = membersOf(state, audience);
  return {
    id: audience.id,
    name: audience.name,
    mindCount: members.length,
    minds: previewList.of(audience, members),
    createdAt: iso(audience.createdAt),
    updatedAt: iso(audience.updatedAt),
    isPublic: audience.isPublic,
    ...sharingFields(audience),
    currentMemberRole: role,
  };
}

/** A view as an answer's body, `{ data: view }`, its Minds laid in as the bytes they were encoded to. */
export function asData<T extends AudienceDetailView | AudienceSummaryView>(
  view: T,
): EncodedJson<{ data: Decoded<T> }> {
  return EncodedJson.object({ data: EncodedJson.object(view) });
}

function sharingFields(a: AudienceRecord): SharingFields {
  return {
    isSharedWithTeam: a.isSharedWithTeam,
    isLinkSharingEnabled: a.isLinkSharingEnabled,
    publicShareId: a.publicShareId,
  };
}
