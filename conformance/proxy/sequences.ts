/**
 * The description's rules that a sequence of observed exchanges shows, judged per API key as traffic
 * flows through the proxy: a deleted key that still works, a resource read after its deletion, an
 * idempotency key replayed with another body and accepted as new work, a `hasMore` page followed by an
 * empty one, a key's secret shown again after its creation (the server's part), and a client that comes
 * back before `Retry-After`, retries a write without an idempotency key, sends one longer than the server
 * reads, or keeps using a key it deleted (the client's part). Only what was seen is judged: the proxy knows
 * a key's ID only if its creation went through it.
 */
import { createHash } from "node:crypto";
import { limits } from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import type { Exchange } from "../lib/http/http.ts";
import { type Violation, violation } from "../lib/reporting/report.ts";
import { ruleText } from "../lib/running/context.ts";

/** Who a finding is about: the server's answers, or the client's behaviour. */
export type Party = "server" | "client";

export interface SequenceFinding {
  party: Party;
  violation: Violation;
}

/** Operations a client may retry safely only with an idempotency key, and the header that carries it. */
const IDEMPOTENT: Record<string, { header: string; rule: RuleId }> = {
  createCheckoutSession: { header: "idempotency-key", rule: "checkout/idempotency" },
  duplicateAudience: { header: "x-service-idempotency-key", rule: "duplicate/replay" },
  recalibrateAudience: { header: "x-service-idempotency-key", rule: "recalibrate/replay" },
};

/** Deletions whose resource must read 404 afterwards: the path of the read is the path deleted. */
const DELETIONS: Record<string, RuleId> = {
  deleteAudience: "audience/delete-owner-only",
  deleteFormation: "formations/lifecycle",
};

/** A write sent again within this long, with the same body, is taken as a retry. */
const RETRY_WINDOW_MS = 60_000;

interface KeyState {
  retryAfterUntil: number | null;
  /** Idempotency key → a digest of the body it was first sent with, and the resource the first 2xx made. */
  replays: Map<string, { body: string; made: string | null }>;
  /** Recent writes of operations in IDEMPOTENT without a key: op+path+body → when. */
  unkeyedWrites: Map<string, number>;
  /** Paths this key deleted, with the rule that makes them gone. */
  deleted: Map<string, RuleId>;
  /** A listing page that said more follows: the offset of the next page, per path. */
  pages: Map<string, number>;
}

export interface IntegrationTally {
  rateLimited: number;
  /** 429s after which the client's next request came after Retry-After. */
  waitedRetryAfter: number;
  notFound: number;
  idempotentWrites: { withKey: number; withoutKey: number };
}

export class Sequences {
  private readonly keys = new Map<string, KeyState>();
  /**
   * Keys whose creation the proxy saw, by key ID, and the keys deleted since: digests only, so that no
   * secret is kept (nor any body: replays keep a digest of theirs).
   */
  private readonly secretOf = new Map<string, string>();
  private readonly deletedSecrets = new Set<string>();
  readonly tally: IntegrationTally = {
    rateLimited: 0,
    waitedRetryAfter: 0,
    notFound: 0,
    idempotentWrites: { withKey: 0, withoutKey: 0 },
  };

  /** Judges one exchange in the light of what its key did before; `key` is its key's digest, if any. */
  observe(ex: Exchange, key: string | null, at: number): SequenceFinding[] {
    const out: SequenceFinding[] = [];
    const find = (party: Party, rule: RuleId, check: string, message: string) =>
      out.push({
        party,
        violation: violation({ check, rule: ruleText(rule), ruleId: rule, message, exchange: ex }),
      });
    if (ex.status === 404) this.tally.notFound++;
    if (key && this.deletedSecrets.has(key))
      if (ex.status !== 401)
        find(
          "server",
          "keys/delete-immediate",
          "sequence/deleted-key",
          `a deleted key was answered ${ex.status}, not 401`,
        );
      else
        find(
          "client",
          "auth/401",
          "client/deleted-key",
          "sent a key it had deleted through this proxy; the API answers 401 to it from the deletion on",
        );
    const state = key ? this.state(key) : null;
    const opId = ex.operation?.operationId ?? null;
    if (state) {
      if (state.retryAfterUntil !== null) {
        if (at < state.retryAfterUntil)
          find(
            "client",
            "limits/rate-limit",
            "client/retry-after",
            `the client came back ${Math.ceil((state.retryAfterUntil - at) / 1000)} s before the Retry-After of its 429 ran out`,
          );
        else this.tally.waitedRetryAfter++;
        state.retryAfterUntil = null;
      }
      if (ex.status === 429) {
        this.tally.rateLimited++;
        const seconds = Number(ex.header("retry-after"));
        if (Number.isFinite(seconds)) state.retryAfterUntil = at + seconds * 1000;
      }
      const path = new URL(ex.url).pathname;
      const deletedBy = state.deleted.get(path);
      if (ex.method === "GET" && deletedBy && ex.status === 200)
        find("server", deletedBy, "sequence/read-after-delete", `${path} was deleted, yet it read 200`);
      const rule = opId ? DELETIONS[opId] : undefined;
      if (rule && ex.status >= 200 && ex.status < 300) state.deleted.set(path, rule);
      if (opId) this.idempotency(ex, opId, state, at, find);
      if (opId === "listFormations") this.paging(ex, state, find);
    }
    this.secretShownAgain(ex, opId, find);
    if (
      opId === "createApiKey" &&
      ex.status === 201 &&
      typeof ex.body?.id === "string" &&
      typeof ex.body?.key === "string"
    )
      this.secretOf.set(ex.body.id, hash(ex.body.key));
    if (opId === "deleteApiKey" && ex.status === 204) {
      const id = new URL(ex.url).pathname.split("/").at(-1) ?? "";
      const gone = this.secretOf.get(id) ?? this.secretOf.get(safeDecode(id));
      if (gone) this.deletedSecrets.add(gone);
    }
    return out;
  }

  /**
   * A key's secret is in its creation's answer only: a listing never carries a `key`, and no later answer
   * carries a secret whose creation the proxy saw.
   */
  private secretShownAgain(
    ex: Exchange,
    opId: string | null,
    find: (party: Party, rule: RuleId, check: string, message: string) => void,
  ): void {
    if (opId === "createApiKey" || ex.status >= 300) return;
    const rows =
      opId === "listApiKeys" && Array.isArray(ex.body) ? (ex.body as Record<string, unknown>[]) : [];
    if (rows.some((r) => r !== null && typeof r === "object" && "key" in r))
      find("server", "keys/secret-once", "sequence/secret-listed", "the key listing carries a `key` field");
    if (this.secretOf.size === 0) return;
    const known = new Set(this.secretOf.values());
    for (const token of ex.text.match(/service_[A-Za-z0-9_-]{6,}/g) ?? [])
      if (known.has(hash(token))) {
        find(
          "server",
          "keys/secret-once",
          "sequence/secret-shown-again",
          `${opId ?? ex.method} answered with the secret of a key made earlier: it is shown once, at creation`,
        );
        return;
      }
  }

  private state(key: string): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      s = {
        retryAfterUntil: null,
        replays: new Map(),
        unkeyedWrites: new Map(),
        deleted: new Map(),
        pages: new Map(),
      };
      this.keys.set(key, s);
    }
    return s;
  }

  private idempotency(
    ex: Exchange,
    opId: string,
    state: KeyState,
    at: number,
    find: (party: Party, rule: RuleId, check: string, message: string) => void,
  ): void {
    const spec = IDEMPOTENT[opId];
    if (!spec) return;
    // A key past the contract's length is ignored by the server (`x-ignored-beyond-length`): no key at all.
    const sent = ex.requestHeaders[spec.header] ?? null;
    const key = sent !== null && sent.length <= limits().idempotencyKey ? sent : null;
    // Only this header is ignored beyond its length (`x-ignored-beyond-length`); checkout's is refused.
    if (sent !== null && key === null && spec.header === "x-service-idempotency-key")
      find(
        "client",
        spec.rule,
        "client/idempotency-key-ignored",
        `sent ${spec.header} of ${sent.length} characters; the API ignores one over ${limits().idempotencyKey} without an error, so this write has no retry protection`,
      );
    const body = hash(ex.requestBodyText ?? "");
    const made = madeId(ex);
    if (key === null) {
      this.tally.idempotentWrites.withoutKey++;
      const write = `${opId} ${new URL(ex.url).pathname} ${body}`;
      const before = state.unkeyedWrites.get(write);
      if (before !== undefined && at - before < RETRY_WINDOW_MS)
        find(
          "client",
          spec.rule,
          "client/retry-without-idempotency-key",
          `the same ${opId} was sent again ${Math.round((at - before) / 1000)} s later without ${spec.header}: a retry that can do the work twice`,
        );
      state.unkeyedWrites.set(write, at);
      return;
    }
    this.tally.idempotentWrites.withKey++;
    // A key is the caller's for one operation on one resource (an Audience's duplicate, its recalibration).
    const scope = `${opId} ${new URL(ex.url).pathname} ${key}`;
    const first = state.replays.get(scope);
    if (!first) {
      state.replays.set(scope, { body, made });
      return;
    }
    if (first.made && made && made !== first.made)
      find(
        "server",
        spec.rule,
        "sequence/idempotency-replay",
        `${spec.header} ${JSON.stringify(key)} sent again${first.body === body ? "" : " with another body"} made ${made}; the first request made ${first.made}`,
      );
  }

  private paging(
    ex: Exchange,
    state: KeyState,
    find: (party: Party, rule: RuleId, check: string, message: string) => void,
  ): void {
    const url = new URL(ex.url);
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const expected = state.pages.get(url.pathname);
    const items = Array.isArray(ex.body?.data) ? ex.body.data.length : null;
    if (expected !== undefined && offset === expected && ex.status === 200 && items === 0)
      find(
        "server",
        "formations/pagination",
        "sequence/phantom-page",
        `the page before said hasMore, yet offset ${offset} holds nothing`,
      );
    state.pages.delete(url.pathname);
    const p = ex.body?.pagination ?? ex.body;
    if (ex.status === 200 && p?.hasMore === true && items !== null)
      state.pages.set(url.pathname, offset + items);
  }
}

/** The resource an idempotent write made: a session's or an Audience's ID, or an operation's. */
function madeId(ex: Exchange): string | null {
  if (ex.status < 200 || ex.status >= 300) return null;
  const b = ex.body;
  return b?.id ?? b?.data?.id ?? b?.data?.operation?.id ?? null;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A digest that stands for a secret or a body in what the proxy keeps. */
/** Digests of the keys seen lately: a client sends the same key again and again. */
const digests = new Map<string, string>();

export function hash(text: string): string {
  let d = digests.get(text);
  if (d === undefined) {
    d = createHash("sha1").update(text).digest("hex");
    if (digests.size >= 1024) digests.clear();
    digests.set(text, d);
  }
  return d;
}
