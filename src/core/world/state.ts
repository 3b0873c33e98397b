/**
 * The simulator's state: plain, JSON-serialisable records held in Maps.
 *
 * Maps (not object literals) because keys come from requests: an ID such as `__proto__` or `constructor`
 * must find nothing rather than something inherited. Records hold only data; rules live in the resource
 * modules. Times are epoch milliseconds from the virtual clock; responses format them.
 */
import type {
  Chart,
  CoverageStatus,
  FilterAttributes,
  GroundingSource,
  SourceBundle,
} from "../../generators/index.ts";
import { DeferredMap } from "./deferred-map.ts";

export type Plan = "free" | "premium" | "team";
export type CollaboratorRole = "admin" | "member";

export interface UserRecord {
  id: string;
  /** The scenario's name for this user (`owner`, `teammate`, …); the manifest is keyed by it. */
  handle: string;
  email: string;
  name: string;
  plan: Plan;
  subscriptionActive: boolean;
  teamId: string | null;
  /** Credentials managed by an SSO identity link: API keys cannot be created. */
  sso: boolean;
  /** Staff accounts may make composition-only recalibrations under a support grant or admin collaboration. */
  staff: boolean;
  /** Account-specific overrides of the plan's allowances; absent means the plan default. */
  limits: { sparks?: number; groupMembers?: number };
  /** Audiences this user follows. */
  following: string[];
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  /** Hex SHA-256 of the raw key; the raw key is never stored. */
  hash: string;
}

export interface TeamRecord {
  id: string;
  name: string;
  memberIds: string[];
}

export type TrainingStatus = "queued" | "running" | "completed" | "failed";

export interface MindTraining {
  status: TrainingStatus;
  /** The last attempt failed and an automatic retrain is pending or running. */
  beingRepaired: boolean;
  /** Failed for good: no automatic retrain left. */
  failedForGood: boolean;
  attempts: number;
  /** Profile and system prompt exist. */
  readyToChat: boolean;
  /** Still learning from sources in the background. */
  learning: boolean;
}

/**
 * Never changed in place once a world is built: a change puts a new record in its place (training moves,
 * grounding). The template's are frozen; views keep what they encoded by record.
 */
export interface MindRecord {
  id: string;
  ownerId: string;
  isPublic: boolean;
  name: string;
  headline: string;
  bio: string;
  systemPrompt: string;
  profile: Record<string, unknown>;
  attributes: FilterAttributes;
  profileImageUrl: string | null;
  knowledge: { id: string; title: string; createdAt: number }[];
  training: MindTraining;
  createdAt: number;
}

export interface DirectCollaborator {
  userId: string;
  role: CollaboratorRole;
  /** Accepted invitations only count as collaborators; pending ones are kept to be revoked. */
  status: "accepted" | "pending";
  invitedAt: number;
  joinedAt: number | null;
}

export interface ValidationRecord {
  id: string;
  status: "scored" | "running";
  score: number | null;
  createdAt: number;
  kpis: { name: string; value: number; low: number; high: number }[];
}

export type ResearchPhase = "usable" | "researching" | "researched";
export type ResearchStage = "researching" | "waiting_for_runs" | "recalibrating" | "done";
export type JobStatus = "queued" | "running" | "completed" | "failed";

export interface ResearchState {
  phase: ResearchPhase;
  status: JobStatus | null;
  stage: ResearchStage | null;
  progress: number;
  startedAt: number | null;
  completedAt: number | null;
  outcome: Record<string, unknown> | null;
  jobId: string | null;
}

export interface AudienceRecord {
  id: string;
  ownerId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  isPublic: boolean;
  isSharedWithTeam: boolean;
  isLinkSharingEnabled: boolean;
  publicShareId: string | null;
  /** Member Mind IDs in the order they joined. */
  memberIds: string[];
  collaborators: DirectCollaborator[];
  grounding: { charts: Chart[]; sources: GroundingSource[] } | null;
  sources: SourceBundle;
  coverage: { dimension: string; status: CoverageStatus; distribution: unknown }[] | null;
  calibrationActive: boolean;
  research: ResearchState | null;
  validations: ValidationRecord[];
  coverImageQueued: boolean;
  /** Scenario topic, used by generators when the Audience grows. */
  topic: string;
}

export interface StudyRecord {
  id: string;
  ownerId: string;
  name: string;
  memberUserIds: string[];
  audienceIds: string[];
}

export interface SubgroupAssignment {
  mindId: string;
  confidence: number;
}

export interface FormationSubgroup {
  id: string;
  label: string;
  definition: string;
  members: SubgroupAssignment[];
}

export interface FormationHypothesisRecord {
  intent: string;
  subgroups: { id: string; label: string; definition: string }[];
}

export interface FormationRecord {
  id: string;
  audienceId: string;
  creatorId: string;
  name: string;
  visibility: "shared" | "private";
  status: "building" | "ready" | "failed";
  /** An auto dimension (seeded default or grounding-derived Formation), or null for user-created ones. */
  autoDimension: string | null;
  hypothesis: FormationHypothesisRecord | Record<string, never>;
  subgroups: FormationSubgroup[];
  progress: { phase: string; done: number; total: number } | null;
  failureReason: string | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  buildSeq: number;
}

export interface IdempotencyRecord {
  /** Scope of the key: operation and caller, so keys never collide across users or endpoints. */
  scope: string;
  key: string;
  resultId: string;
  createdAt: number;
}

export interface State {
  users: Map<string, UserRecord>;
  apiKeys: Map<string, ApiKeyRecord>;
  /** Raw-key hash to key ID: authentication is one lookup. */
  apiKeyByHash: Map<string, string>;
  teams: Map<string, TeamRecord>;
  minds: Map<string, MindRecord>;
  audiences: Map<string, AudienceRecord>;
  studies: Map<string, StudyRecord>;
  formations: Map<string, FormationRecord>;
  idempotency: Map<string, IdempotencyRecord>;
  /** Resource modules of later parts keep their own records here, by resource name. */
  extra: Map<string, Map<string, unknown>>;
}

export function emptyState(): State {
  return {
    users: new Map(),
    apiKeys: new Map(),
    apiKeyByHash: new Map(),
    teams: new Map(),
    // A scenario's builder may defer Minds in it (ScenarioBuilder.lazyMinds); otherwise a plain Map.
    minds: new DeferredMap(),
    audiences: new Map(),
    studies: new Map(),
    formations: new Map(),
    idempotency: new Map(),
    extra: new Map(),
  };
}

/** A table of records a resource module keeps outside the core's named tables. */
export function table<T>(state: State, name: string): Map<string, T> {
  let t = state.extra.get(name);
  if (!t) {
    t = new Map();
    state.extra.set(name, t);
  }
  return t as Map<string, T>;
}
