/**
 * What scenarios build state with. A scenario is code: it calls these helpers, which make records with
 * IDs from the seeded generator, register handles in the manifest, and keep raw API keys only in the
 * manifest (state holds their hashes, filled in by the engine once the build is done).
 */

import { DeferredMap, type MakerOf } from "../core/world/deferred-map.ts";
import type { Manifest } from "../core/world/manifest.ts";
import type { BuiltScenario, PendingKey, Scenario } from "../core/world/scenario.ts";
import type {
  AudienceRecord,
  CollaboratorRole,
  FormationHypothesisRecord,
  FormationRecord,
  MindRecord,
  Plan,
  State,
  StudyRecord,
  TeamRecord,
  UserRecord,
} from "../core/world/state.ts";
import { emptyState, table } from "../core/world/state.ts";
import { deepFreeze } from "../core/world/template.ts";
import {
  AUDIENCE_TOPICS,
  baselineDistributions,
  coverageFor,
  generateGrounding,
  generateSourceBundle,
  nthPersona,
  type PersonaOptions,
} from "../generators/index.ts";
import { createRng, type Rng } from "../generators/prng.ts";
import { classify, populatedPrimaryBuckets } from "../resources/formations/formation-classifier.ts";
import { COMPLETED_TRAINING, mindFromPersona } from "../resources/minds.ts";

/** A built-in scenario: code that fills a builder, which a scenario document may extend. */
export interface CodeScenario extends Scenario {
  fill(b: ScenarioBuilder): void;
}

/** A scenario written as code: `build` calls the builder's helpers on a fresh state. */
export function codeScenario(def: {
  name: string;
  description: string;
  build(b: ScenarioBuilder): void;
}): CodeScenario {
  return {
    name: def.name,
    description: def.description,
    fill: def.build,
    build: ({ rng, now, seed }) => {
      const b = new ScenarioBuilder(emptyState(), rng, now, def.name, seed);
      def.build(b);
      return b.built();
    },
  };
}

export type PriceRecord = Manifest["prices"][string];

/** What checks over a world read of a Mind (ScenarioBuilder.mindFacts). */
export interface MindFacts {
  ownerId: string;
  isPublic: boolean;
}

/** How a series of generated Minds is made (ScenarioBuilder.minds and lazyMinds). */
export interface MindSeriesOptions {
  topic?: string;
  isPublic?: boolean;
  label: string;
  missingRate?: number;
  /** Personas of this seed rather than the world's: the same people whatever the world's seed. */
  personaSeed?: number;
  /** People of the field of work and country the topic names (scenario documents; generators/domains.ts). */
  fitTopic?: boolean;
  /** The first Mind's ID, stated (a recording's); the rest are generated. */
  id?: string;
}

/** What a series of generated Minds is made from: data, so that a template can ship it (src/core/world/template-data.ts). */
export interface MindSeriesRecipe {
  kind: "mind-series";
  /** The seed of the personas' stream: a persona depends on it and its index alone (nthPersona). */
  personaSeed: number;
  options: PersonaOptions;
  ownerId: string;
  isPublic: boolean;
  createdAt: number;
}

/** The maker of a series' Minds: the `i`th is the Mind of `ids[i]`, made from the `i`th persona. */
export function mindSeriesMaker(recipe: MindSeriesRecipe, ids: readonly string[]): (i: number) => MindRecord {
  const personaRng = createRng(recipe.personaSeed);
  const { ownerId, isPublic, createdAt, options } = recipe;
  return (i) =>
    mindFromPersona(nthPersona(personaRng, i, options), {
      id: ids[i] as string,
      ownerId,
      isPublic,
      createdAt,
      training: COMPLETED_TRAINING,
    });
}

/**
 * The maker of a batch of deferred Minds from its recipe (ScenarioBuilder.lazyMinds, and a template shipped as
 * data: src/core/world/template-data.ts); its Minds frozen, as every Mind of a template is.
 */
export const deferredMindMaker: MakerOf<string, MindRecord> = (recipe, keys) => {
  if ((recipe as { kind?: unknown } | null)?.kind !== "mind-series")
    throw new TypeError("a deferred batch that is not a series of Minds");
  const make = mindSeriesMaker(recipe as MindSeriesRecipe, keys);
  return (i) => deepFreeze(make(i));
};

const KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const CUID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A link-sharing ID: `shr_` and 12 characters. */
const shareId = (rng: Rng): string => `shr_${rng.chars(12, CUID_ALPHABET)}`;

export class ScenarioBuilder {
  readonly pendingKeys: PendingKey[] = [];
  readonly manifest: Manifest;

  readonly state: State;
  readonly rng: Rng;
  /** Virtual time at which the scenario starts. */
  readonly now: number;
  constructor(state: State, rng: Rng, now: number, scenario: string, seed: number) {
    this.state = state;
    this.rng = rng;
    this.now = now;
    this.manifest = {
      scenario,
      seed,
      now: new Date(now).toISOString(),
      users: {},
      audiences: {},
      minds: {},
      formations: {},
      prices: {},
    };
  }

  /** What the core is handed: the state, the manifest and the keys to hash. */
  built(): BuiltScenario {
    return { state: this.state, manifest: this.manifest, keys: this.pendingKeys };
  }

  /** A point in the past, `days` before the scenario's start, for believable timestamps. */
  ago(days: number): number {
    return this.now - Math.round(days * 86_400_000);
  }

  /** Teams by handle: the manifest has no teams, but a scenario document names them. */
  readonly teams = new Map<string, TeamRecord>();

  team(name: string, handle?: string): TeamRecord {
    const t: TeamRecord = { id: this.rng.uuid(), name, memberIds: [] };
    this.state.teams.set(t.id, t);
    if (handle !== undefined) this.teams.set(handle, t);
    return t;
  }

  /** A user with one working API key, registered in the manifest under `handle`. */
  user(
    handle: string,
    opts: {
      name: string;
      plan: Plan;
      subscriptionActive: boolean;
      team?: TeamRecord | null;
      sso?: boolean;
      staff?: boolean;
      limits?: UserRecord["limits"];
      keyName?: string | null;
      email?: string;
      /** Keys in place of the one generated key: a raw key given is used as it is. */
      keys?: readonly { name: string | null; raw?: string; createdAt?: number }[];
    },
  ): UserRecord {
    const u: UserRecord = {
      id: this.rng.uuid(),
      handle,
      email: opts.email ?? `${opts.name.toLowerCase().replace(/[^a-z]+/g, ".")}@example.com`,
      name: opts.name,
      plan: opts.plan,
      subscriptionActive: opts.subscriptionActive,
      teamId: opts.team?.id ?? null,
      sso: opts.sso ?? false,
      staff: opts.staff ?? false,
      limits: opts.limits ?? {},
      following: [],
    };
    this.state.users.set(u.id, u);
    opts.team?.memberIds.push(u.id);
    const keys = opts.keys ?? [{ name: opts.keyName ?? "Scenario key" }];
    const [raw] = keys.map((k) => this.apiKey(u, k.name, k.createdAt ?? this.ago(30), k.raw));
    if (raw === undefined) throw new Error(`user ${handle} has no API key`);
    this.manifest.users[handle] = {
      id: u.id,
      apiKey: raw,
      plan: u.plan,
      subscriptionActive: u.subscriptionActive,
      teamId: u.teamId,
      sso: u.sso,
    };
    return u;
  }

  /** Adds an API key (generated unless `given`); returns the raw secret. */
  apiKey(user: UserRecord, name: string | null, createdAt: number, given?: string): string {
    // Drawn even when a key is given, so that giving one key does not change every ID made after it.
    const drawn = `service_${this.rng.chars(40, KEY_ALPHABET)}`;
    const raw = given ?? drawn;
    const record = {
      id: `c${this.rng.chars(24, CUID_ALPHABET)}`,
      userId: user.id,
      name,
      createdAt,
      lastUsedAt: null,
    };
    this.pendingKeys.push({ record, raw });
    return raw;
  }

  /** Minds generated from personas, owned by `owner`. */
  minds(owner: UserRecord, count: number, opts: MindSeriesOptions): MindRecord[] {
    const series = this.mindSeries(owner, count, opts);
    // Each persona becomes a Mind at once: it is garbage as soon as it is copied, so it dies young instead
    // of being copied through the young generation with thousands of others still alive.
    const minds: MindRecord[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const m = series.record(i);
      this.state.minds.set(m.id, m);
      minds[i] = m;
    }
    return minds;
  }

  /**
   * The Minds `minds` would generate, each made when first read (src/core/world/deferred-map.ts), for a panel
   * whose members the scenario only lists: the default scenario's 5,200 would otherwise be most of the
   * work done before the server can answer. Made Minds are frozen, as every Mind of a template is. Their
   * IDs, for an Audience's `memberIds`.
   */
  lazyMinds(owner: UserRecord, count: number, opts: MindSeriesOptions): string[] {
    const table = this.state.minds;
    if (!(table instanceof DeferredMap)) throw new Error("lazyMinds needs a state made by emptyState()");
    const series = this.mindSeries(owner, count, opts);
    table.deferAll(series.ids, deferredMindMaker(series.recipe, series.ids), series.recipe);
    // A copy: whoever holds the list may change it, the makers' must stay as drawn.
    return [...series.ids];
  }

  /**
   * Whose Mind `id` is and whether it is public, without making it: a check over every Mind of a world (a
   * scenario document's plan caps) must not make the Minds lazyMinds deferred. Undefined for no Mind.
   */
  mindFacts(id: string): MindFacts | undefined {
    const table = this.state.minds;
    // A deferred Mind's owner and visibility are in the recipe it is made from.
    const recipe = table instanceof DeferredMap ? table.recipeOf(id) : undefined;
    return recipe === undefined ? table.get(id) : (recipe as MindSeriesRecipe);
  }

  /** The IDs of `count` generated Minds, drawn now, and how each one's record is made. */
  private mindSeries(
    owner: UserRecord,
    count: number,
    opts: MindSeriesOptions,
  ): { ids: string[]; recipe: MindSeriesRecipe; record: (i: number) => MindRecord } {
    const personaRng =
      opts.personaSeed === undefined
        ? this.rng.fork(`personas:${opts.label}`)
        : createRng(opts.personaSeed).fork("personas");
    const options: PersonaOptions = {
      ...(opts.topic !== undefined ? { theme: opts.topic } : {}),
      ...(opts.missingRate !== undefined ? { missingRate: opts.missingRate } : {}),
      ...(opts.fitTopic ? { fitTheme: true } : {}),
    };
    const idRng = this.rng.fork(`mind-ids:${opts.label}`);
    const ids: string[] = new Array(count);
    for (let i = 0; i < count; i++) {
      // Drawn even when stated, so that a stated ID leaves every other one as it was.
      const drawn = idRng.uuid();
      ids[i] = i === 0 && opts.id !== undefined ? opts.id : drawn;
    }
    const recipe: MindSeriesRecipe = {
      kind: "mind-series",
      personaSeed: personaRng.seed,
      options,
      ownerId: owner.id,
      isPublic: opts.isPublic ?? false,
      createdAt: this.ago(20),
    };
    return { ids, recipe, record: mindSeriesMaker(recipe, ids) };
  }

  /** One Mind registered in the manifest under `handle`. */
  mind(
    handle: string,
    owner: UserRecord,
    opts: { isPublic?: boolean; topic?: string; fitTopic?: boolean; id?: string } = {},
  ): MindRecord {
    const [m] = this.minds(owner, 1, { ...opts, label: `handle:${handle}` });
    const mind = m as MindRecord;
    this.manifest.minds[handle] = { id: mind.id, owner: owner.handle, public: mind.isPublic };
    return mind;
  }

  /** An Audience registered in the manifest under `handle`, with generated sources and grounding. */
  audience(
    handle: string,
    owner: UserRecord,
    opts: {
      name?: string;
      topic?: string;
      /** Minds, or their IDs (those `lazyMinds` hands back). */
      members?: readonly (MindRecord | string)[];
      isPublic?: boolean;
      isSharedWithTeam?: boolean;
      linkSharing?: boolean;
      withGrounding?: boolean;
      withUploadedFile?: boolean;
      scoredValidation?: boolean;
      /** Its ID, stated (a recording's); default: drawn from the Audience's own stream. */
      id?: string;
    },
  ): AudienceRecord {
    const topic = opts.topic ?? this.rng.fork(`topic:${handle}`).pick(AUDIENCE_TOPICS);
    const rng = this.rng.fork(`audience:${handle}`);
    // Drawn even when stated, so that what the stream makes next stays the same.
    const drawn = rng.uuid();
    const a: AudienceRecord = {
      id: opts.id ?? drawn,
      ownerId: owner.id,
      name: opts.name ?? topic,
      createdAt: this.ago(14),
      updatedAt: this.ago(2),
      isPublic: opts.isPublic ?? false,
      isSharedWithTeam: opts.isSharedWithTeam ?? false,
      isLinkSharingEnabled: opts.linkSharing ?? false,
      publicShareId: opts.linkSharing ? shareId(rng) : null,
      memberIds: (opts.members ?? []).map((m) => (typeof m === "string" ? m : m.id)),
      collaborators: [],
      grounding: null,
      sources: generateSourceBundle(rng.fork("sources"), topic, {
        withUploadedFile: opts.withUploadedFile ?? false,
      }),
      coverage: null,
      calibrationActive: false,
      research: null,
      validations: opts.scoredValidation ? [this.scoredValidation(rng)] : [],
      coverImageQueued: false,
      topic,
    };
    if (opts.withGrounding) this.ground(a, handle, opts.withUploadedFile ?? false);
    this.state.audiences.set(a.id, a);
    this.manifest.audiences[handle] = { id: a.id, owner: owner.handle };
    return a;
  }

  /** Generated stored grounding with charts (and the coverage that follows from it) for `audience`. */
  ground(audience: AudienceRecord, handle: string, withUploadedFile: boolean): void {
    const rng = this.rng.fork(`audience:${handle}`);
    const g = generateGrounding(rng.fork("grounding"), audience.topic, {
      withCharts: true,
      withUploadedFile,
    });
    audience.grounding = { charts: g.charts, sources: g.sources };
    audience.coverage = coverageFor(rng.fork("coverage"), g.charts).dimensions;
  }

  /** One scored validation with a KPI and its 95% interval. */
  scoredValidation(rng: Rng): AudienceRecord["validations"][number] {
    return {
      id: rng.uuid(),
      status: "scored",
      score: 0.82,
      createdAt: this.ago(3),
      kpis: [{ name: "Answer-share agreement", value: 0.84, low: 0.79, high: 0.88 }],
    };
  }

  /** An accepted (or pending) direct collaborator. */
  collaborator(audience: AudienceRecord, user: UserRecord, role: CollaboratorRole, accepted = true): void {
    audience.collaborators.push({
      userId: user.id,
      role,
      status: accepted ? "accepted" : "pending",
      invitedAt: this.ago(10),
      joinedAt: accepted ? this.ago(9) : null,
    });
  }

  study(owner: UserRecord, name: string, audiences: AudienceRecord[], members: UserRecord[]): StudyRecord {
    const s: StudyRecord = {
      id: this.rng.uuid(),
      ownerId: owner.id,
      name,
      memberUserIds: members.map((m) => m.id),
      audienceIds: audiences.map((a) => a.id),
    };
    this.state.studies.set(s.id, s);
    return s;
  }

  /** Member-derived baseline distributions, as the simulator reports them. */
  baseline(audience: AudienceRecord) {
    return baselineDistributions(
      audience.memberIds.map((id) => ({ attributes: this.state.minds.get(id)?.attributes ?? {} })),
    );
  }

  /**
   * A Formation built at once with the classifier. `status: "failed"` records a failed build with a safe
   * reason; `"building"` leaves it for the engine's recovery on the next listing.
   */
  formation(
    handle: string | null,
    audience: AudienceRecord,
    creator: UserRecord,
    opts: {
      name: string;
      hypothesis: FormationHypothesisRecord;
      visibility: "shared" | "private";
      status?: "ready" | "failed" | "building";
      autoDimension?: string | null;
      /** Its ID, stated (a recording's); default: drawn from the world's stream. */
      id?: string;
    },
  ): FormationRecord {
    // Drawn even when stated, so that every ID drawn after it stays the same.
    const drawn = this.rng.uuid();
    const id = opts.id ?? drawn;
    const members = audience.memberIds.flatMap((mid) => this.state.minds.get(mid) ?? []);
    const subgroups = opts.status === "building" ? [] : classify(members, opts.hypothesis, id);
    const status = opts.status ?? (populatedPrimaryBuckets(subgroups) >= 2 ? "ready" : "failed");
    const f: FormationRecord = {
      id,
      audienceId: audience.id,
      creatorId: creator.id,
      name: opts.name,
      visibility: opts.visibility,
      status,
      autoDimension: opts.autoDimension ?? null,
      hypothesis: opts.hypothesis,
      subgroups: status === "ready" ? subgroups : [],
      progress: status === "building" ? { phase: "sorting", done: 0, total: members.length } : null,
      failureReason: status === "failed" ? "Fewer than two subgroups received members" : null,
      createdAt: this.ago(5),
      updatedAt: this.ago(5),
      deletedAt: null,
      buildSeq: 1,
    };
    this.state.formations.set(f.id, f);
    if (handle) this.manifest.formations[handle] = { id: f.id, audience: this.audienceHandle(audience) };
    return f;
  }

  /** Turns link sharing of an Audience on (keeping a share ID it has) or off. */
  linkSharing(audience: AudienceRecord, handle: string, on: boolean): void {
    audience.isLinkSharingEnabled = on;
    audience.publicShareId = on
      ? (audience.publicShareId ?? shareId(this.rng.fork(`share:${handle}`)))
      : null;
  }

  /** Empties the hosted-checkout catalogue (a scenario document that gives its own). */
  clearPrices(): void {
    table<PriceRecord>(this.state, "prices").clear();
    for (const h of Object.keys(this.manifest.prices)) delete this.manifest.prices[h];
  }

  /** A price of the hosted-checkout catalogue. */
  price(handle: string, price: Omit<PriceRecord, "id"> & { id?: string }): PriceRecord {
    const p: PriceRecord = { ...price, id: price.id ?? `price_${this.rng.chars(14, KEY_ALPHABET)}` };
    table<PriceRecord>(this.state, "prices").set(p.id, p);
    this.manifest.prices[handle] = p;
    return p;
  }

  private audienceHandle(a: AudienceRecord): string {
    for (const [h, v] of Object.entries(this.manifest.audiences)) if (v.id === a.id) return h;
    return a.id;
  }
}
