/**
 * `proxy --record FILE`: the world the traffic showed, as a scenario document the simulator serves
 * (`serve --scenario FILE`). What a session reads through the proxy is what the document states: who the
 * callers are, the Audiences they read (name, sharing, members as explicit Minds with their names,
 * headlines, bios and attributes), their collaborators, the Formations read one by one (name, hypothesis,
 * status). Never a key or a secret: the recorded world makes its own keys. What no answer shows (a plan
 * no refusal named, an Audience's owner when only others read it) is assumed, and said so in `notes()`.
 */
import type {
  Attributes,
  Audience,
  Formation,
  Mind,
  ScenarioDocument,
  User,
} from "../../src/contract/scenario-document.gen.ts";
import { isUuid, schemaAt } from "../lib/description/contract.ts";
import type { Exchange } from "../lib/http/http.ts";
import type { Match } from "../lib/http/requests.ts";

type Json = Record<string, unknown>;
type Plan = NonNullable<User["plan"]>;

interface SeenUser {
  name?: string;
  email?: string;
  plan?: Plan;
  subscription?: boolean;
}
interface SeenMind {
  name?: string;
  headline?: string;
  bio?: string;
  attributes?: Attributes;
}
interface SeenAudience {
  name: string;
  public: boolean;
  sharedWithTeam?: boolean;
  linkSharing?: boolean;
  members: { id: string; mind: SeenMind }[];
  owner?: string;
  reader: string;
  collaborators?: { userId: string; role: "admin" | "member" }[];
}

/** Below this many Minds or members, no plan's allowance is in the way; above it one may be. */
const SMALLEST_ALLOWANCE = 25;
const ALLOWANCE_ROOM = 1000;

/** The filter attributes a Mind may hold, as the contract names them. */
const ATTRIBUTE_KEYS = schemaAt("#/components/schemas/FilterAttributeKey").enum as string[];

export class Recorder {
  private readonly users = new Map<string, SeenUser>();
  /** User IDs by key digest (from `GET /auth/me`). */
  private readonly callers = new Map<string, string>();
  /** Handles a key's user is known by (a kit config's role), by key digest; the others are `user1`, …. */
  private readonly named = new Map<string, string>();
  private readonly audiences = new Map<string, SeenAudience>();
  private readonly formations = new Map<string, Formation & { audienceId: string; creatorId?: string }>();

  /** Takes what one successful (or plan-refused) exchange shows. */
  observe(ex: Exchange, key: string | null, match: Match): void {
    if (!ex.operation || match.kind !== "found") return;
    const body = ex.json as Json | null;
    const data = (body?.data ?? null) as Json | null;
    const caller = key ? this.callers.get(key) : undefined;
    const params = match.params;
    switch (ex.operation.operationId) {
      case "getMe":
        if (ex.status === 200 && key && typeof body?.id === "string") {
          this.callers.set(key, body.id);
          this.user(body.id);
        }
        break;
      case "listApiKeys":
        if (caller && (ex.status === 200 || ex.status === 403))
          this.user(caller).subscription = ex.status === 200;
        break;
      case "getAudience":
        if (ex.status === 200 && data && caller) this.audience(params.audienceId as string, data, caller);
        break;
      case "listCollaborators":
        if (ex.status === 200 && Array.isArray(data)) this.collaborators(params.audienceId as string, data);
        break;
      case "getFormation":
        if (ex.status === 200 && data) this.formation(params.audienceId as string, data, caller);
        break;
    }
    // A plan-limit refusal names the caller's plan.
    const plan = (body?.data as Json | undefined)?.currentPlan;
    if (ex.status === 403 && caller && typeof plan === "string") this.user(caller).plan = plan as Plan;
  }

  /** A plan stated elsewhere (a kit config's `plans`), over what the answers showed. */
  plan(userId: string, plan: string): void {
    if (plan === "free" || plan === "premium" || plan === "team") this.user(userId).plan = plan;
  }

  private user(id: string): SeenUser {
    let u = this.users.get(id);
    if (!u) {
      u = {};
      this.users.set(id, u);
    }
    return u;
  }

  private audience(id: string, d: Json, caller: string): void {
    const minds = Array.isArray(d.minds) ? (d.minds as Json[]) : [];
    const before = this.audiences.get(id);
    this.audiences.set(id, {
      name: String(d.name),
      public: d.isPublic === true,
      ...(typeof d.isSharedWithTeam === "boolean" ? { sharedWithTeam: d.isSharedWithTeam } : {}),
      ...(typeof d.isLinkSharingEnabled === "boolean" ? { linkSharing: d.isLinkSharingEnabled } : {}),
      members: minds.map((m) => ({ id: String(m.id), mind: mindOf(m) })),
      ...(d.currentMemberRole === "owner" ? { owner: caller } : before?.owner ? { owner: before.owner } : {}),
      reader: before?.reader ?? caller,
      ...(before?.collaborators ? { collaborators: before.collaborators } : {}),
    });
  }

  private collaborators(audienceId: string, rows: Json[]): void {
    const a = this.audiences.get(audienceId);
    if (!a) return;
    a.collaborators = rows.map((r) => {
      const userId = String(r.userId);
      const u = this.user(userId);
      if (typeof r.name === "string") u.name = r.name;
      if (typeof r.email === "string") u.email = r.email;
      return { userId, role: r.role === "admin" ? "admin" : "member" };
    });
  }

  private formation(audienceId: string, d: Json, caller: string | undefined): void {
    const h = d.hypothesis as { intent?: string; subgroups?: Json[] } | undefined;
    if (!h?.intent || !Array.isArray(h.subgroups)) return;
    this.formations.set(String(d.id), {
      audience: "",
      audienceId,
      ...(caller ? { creatorId: caller } : {}),
      name: String(d.name),
      hypothesis: {
        intent: h.intent,
        subgroups: h.subgroups.map((s) => ({
          id: String(s.id),
          label: String(s.label),
          definition: String(s.definition),
        })),
      },
      ...(d.status === "ready" || d.status === "building" || d.status === "failed"
        ? { status: d.status }
        : {}),
    });
  }

  /** Whether an answer has shown who owns the Audience (`currentMemberRole: "owner"` to its owner). */
  ownerKnown(audienceId: string): boolean {
    return this.audiences.get(audienceId)?.owner !== undefined;
  }

  /** Names the user behind a key (its digest, as `observe` is given it) by `handle` in the document. */
  name(key: string, handle: string): void {
    this.named.set(key, handle);
  }

  /** The recorded world, as a scenario document. */
  document(): ScenarioDocument {
    const handles = new Map<string, string>();
    for (const [key, handle] of this.named) {
      const id = this.callers.get(key);
      if (id !== undefined && this.users.has(id) && !handles.has(id)) handles.set(id, handle);
    }
    const taken = new Set(handles.values());
    let n = 0;
    for (const id of this.users.keys()) {
      if (handles.has(id)) continue;
      while (taken.has(`user${++n}`));
      handles.set(id, `user${n}`);
    }
    const users: Record<string, User> = {};
    const teams: Record<string, { name: string }> = {};
    for (const [id, u] of this.users) {
      const handle = handles.get(id) as string;
      users[handle] = {
        ...(u.name ? { name: u.name } : {}),
        ...(u.email ? { email: u.email } : {}),
        plan: u.plan ?? (u.subscription === false ? "free" : "team"),
      };
    }
    const minds: Record<string, Mind> = {};
    const mindHandles = new Map<string, string>();
    const audiences: Record<string, Audience> = {};
    const audienceHandles = new Map<string, string>();
    for (const [id, a] of this.audiences) {
      const handle = `audience${audienceHandles.size + 1}`;
      audienceHandles.set(id, handle);
      const owner = handles.get(a.owner ?? a.reader) as string;
      // Sharing with a team needs an owner in one: the recorded owner gets a team of their own.
      if (a.sharedWithTeam) {
        teams[`${owner}Team`] = { name: `${owner}'s team` };
        (users[owner] as User).team = `${owner}Team`;
      }
      const members: string[] = [];
      for (const m of a.members) {
        let mh = mindHandles.get(m.id);
        if (!mh) {
          mh = `mind${mindHandles.size + 1}`;
          mindHandles.set(m.id, mh);
          minds[mh] = { ...idOf(m.id), owner, topic: a.name, ...m.mind };
        }
        members.push(mh);
      }
      audiences[handle] = {
        ...idOf(id),
        owner,
        name: a.name,
        topic: a.name,
        public: a.public,
        ...(a.sharedWithTeam !== undefined ? { sharedWithTeam: a.sharedWithTeam } : {}),
        ...(a.linkSharing !== undefined ? { linkSharing: a.linkSharing } : {}),
        members,
        ...(a.collaborators?.length
          ? {
              collaborators: a.collaborators.map((c) => ({
                user: handles.get(c.userId) as string,
                role: c.role,
              })),
            }
          : {}),
      };
    }
    this.allowances(users, minds, audiences);
    const formations: Record<string, Formation> = {};
    for (const [id, f] of this.formations) {
      const audience = audienceHandles.get(f.audienceId);
      if (!audience) continue;
      const { audienceId: _, creatorId, ...rest } = f;
      // Only who may edit the Audience in the recorded world creates a Formation there; else its owner.
      const a = audiences[audience] as Audience;
      const editors = new Set([a.owner, ...(a.collaborators ?? []).map((c) => c.user)]);
      const reader = creatorId ? handles.get(creatorId) : undefined;
      const creator = reader && editors.has(reader) ? reader : undefined;
      formations[`formation${Object.keys(formations).length + 1}`] = {
        ...idOf(id),
        ...rest,
        audience,
        ...(creator ? { creator } : {}),
      };
    }
    return {
      name: "recorded",
      description: "Recorded through the validating proxy (audience-research-sim proxy --record).",
      ...(Object.keys(teams).length ? { teams } : {}),
      users,
      minds,
      audiences,
      formations,
    };
  }

  /**
   * The recording makes each Audience's owner own its members (who owns a Mind is not shown): an owner of
   * more than a plan's smallest allowance gets allowances of their own, with room to spare (ALLOWANCE_ROOM),
   * so that the world builds; the plans' own allowances are not shown either.
   */
  private allowances(
    users: Record<string, User>,
    minds: Record<string, Mind>,
    audiences: Record<string, Audience>,
  ): void {
    const owned = new Map<string, number>();
    for (const m of Object.values(minds)) owned.set(m.owner, (owned.get(m.owner) ?? 0) + 1);
    const largest = new Map<string, number>();
    for (const a of Object.values(audiences))
      if (a.owner) largest.set(a.owner, Math.max(largest.get(a.owner) ?? 0, a.members?.length ?? 0));
    for (const [handle, user] of Object.entries(users)) {
      const sparks = owned.get(handle) ?? 0;
      const members = largest.get(handle) ?? 0;
      if (sparks > SMALLEST_ALLOWANCE || members > SMALLEST_ALLOWANCE)
        user.limits = { sparks: sparks + ALLOWANCE_ROOM, groupMembers: members + ALLOWANCE_ROOM };
    }
  }

  /** What the document assumes because no answer of the session showed it. */
  notes(): string[] {
    const out: string[] = [];
    for (const [id, u] of this.users)
      if (!u.plan)
        out.push(`user ${id}: plan not shown (${u.subscription === false ? "free" : "team"} assumed)`);
    for (const [id, a] of this.audiences)
      if (!a.owner) out.push(`audience ${id}: its owner never read it; its first reader is taken as owner`);
    out.push("not stated by the format: user IDs, keys, grounding and sources, Formation subgroups' members");
    return out;
  }
}

function mindOf(m: Json): SeenMind {
  const attrs = m.attributes as Json | undefined;
  const attributes: Attributes = {};
  // An attribute an answer leaves out is one the Mind has no value for: stated as null, not generated.
  for (const k of ATTRIBUTE_KEYS) {
    const v = attrs?.[k];
    (attributes as Record<string, string | null>)[k] = typeof v === "string" ? v : null;
  }
  return {
    ...(typeof m.name === "string" ? { name: m.name } : {}),
    ...(typeof m.headline === "string" ? { headline: m.headline } : {}),
    ...(typeof m.bio === "string" ? { bio: m.bio } : {}),
    ...(attrs ? { attributes } : {}),
  };
}

/** A record's ID as the document states it (what URLs name keeps working offline); one that is no UUID, none. */
function idOf(id: string): { id?: string } {
  return isUuid(id) ? { id } : {};
}
