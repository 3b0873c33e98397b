/**
 * The resource's handler, where the way ends. A pure read (it changes nothing) is answered at once, its
 * rendered answer kept per state and reused; anything else waits its turn in the serial section and is made
 * as one change (./change.ts), which the reply waits to be durable.
 */
import type { Operation } from "../../contract/operations.ts";
import { Answer, type Outcome } from "../request/exchange.ts";
import { keysOutOfReach, verifyKept } from "../request/kept-answers.ts";
import { renderReply } from "../request/render.ts";
import type { RequestContext, RouteSpec } from "../resource.ts";
import type { StateMemo } from "../world/memo.ts";
import type { WithBody } from "./call.ts";
import type { MakeChange } from "./change.ts";
import type { Next } from "./compose.ts";

export interface ExecuteDeps {
  /** Kept answers, per state. */
  memo: Pick<StateMemo, "peek" | "set" | "version">;
  /** Runs a step that may change the world in its turn of the serial section. */
  changing<T>(step: () => Promise<T>): Promise<T>;
  change: MakeChange;
  /** Every kept answer is rendered with keys out of reach and checked on reuse (for tests). */
  verify: boolean;
}

/** Callers whose keys one URL and operation keep (./execute.ts's `keyOf`). */
const MAX_CALLERS_PER_URL = 64;

export function execute(d: ExecuteDeps): Next<WithBody> {
  const { memo, verify } = d;
  /**
   * What a pure read's answer is kept under: the operation, the caller (roles differ), path and query. Made
   * once per URL (src/core/request/parsed-url.ts hands the same URL object for the same text), operation and
   * caller, and looked up again by those: built on every read, the key was a fresh string the memo hashed
   * each time.
   */
  const keys = new WeakMap<URL, Map<Operation, Map<string, string>>>();
  const keyOf = (ctx: RequestContext, op: Operation): string => {
    let byOp = keys.get(ctx.url);
    if (byOp === undefined) {
      byOp = new Map();
      keys.set(ctx.url, byOp);
    }
    let byCaller = byOp.get(op);
    if (byCaller === undefined) {
      byCaller = new Map();
      byOp.set(op, byCaller);
    }
    const caller = ctx.caller?.id ?? "";
    let key = byCaller.get(caller);
    if (key === undefined) {
      // Every sandbox's users reach the same URLs: what one URL keeps stays bounded.
      if (byCaller.size >= MAX_CALLERS_PER_URL) byCaller.clear();
      key = `answer ${op.operationId} ${caller} ${ctx.path}${ctx.url.search}`;
      byCaller.set(caller, key);
    }
    return key;
  };

  /**
   * A pure read's answer under `key`, rendered once per state and reused: an Answer whose body is already
   * encoded. `known` (what the key held) reaches here only to be checked against a fresh rendering
   * (`verify`); otherwise it was served at once. Rate-limit headers are added per request.
   */
  async function keptAnswer(
    ctx: RequestContext,
    spec: RouteSpec,
    key: string,
    known: Answer | undefined,
  ): Promise<Outcome> {
    if (known) {
      verifyKept(known, renderReply(await spec.handler(keysOutOfReach(ctx)), {}), key);
      return known;
    }
    const version = memo.version;
    const rendered = renderReply(await spec.handler(verify ? keysOutOfReach(ctx) : ctx), {});
    if (!(rendered instanceof Answer)) return rendered;
    const answer = rendered.encoded();
    if (answer.status === 200) memo.set(key, answer, version);
    return answer;
  }

  /** `key`: what its answer is kept under, or null for a read whose answer is not kept. */
  async function pureRead(call: WithBody, key: string | null, known: Answer | undefined): Promise<Outcome> {
    const { ctx, spec, headers } = call;
    const reply = key === null ? await spec.handler(ctx) : await keptAnswer(ctx, spec, key, known);
    return renderReply(reply, headers);
  }

  async function change(call: WithBody): Promise<Outcome> {
    const { ctx, spec, headers } = call;
    call.who.keysOnly = spec.keysOnly === true;
    const reply = await d.changing(() => d.change(ctx, spec, call.raw, call.recorded, undefined));
    return renderReply(reply, headers);
  }

  return (call) => {
    const { ctx, spec, op } = call;
    // Asked last, with nothing awaited between it and a pure handler: the state it saw is the one served.
    if (!(spec.pure === true || spec.pure?.(ctx))) return change(call);
    call.who.pure = true;
    const method = call.request.method;
    const key = !spec.volatile && (method === "GET" || method === "HEAD") ? keyOf(ctx, op) : null;
    const known = key === null ? undefined : memo.peek<Answer>(key);
    // A kept answer is served now, not a turn later: no promise from here to the host (most reads).
    if (known && !verify) return renderReply(known, call.headers);
    return pureRead(call, key, known);
  };
}
