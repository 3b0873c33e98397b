/**
 * One stage of the ways a request takes (src/core/stages/) tested alone: a call made as a host would hand
 * it, run through the one stage with a `next` that records what was passed on. No world is built: a stage
 * is handed only what it uses, and its test hands it that. What needs a world (a change made, a kept
 * answer) has `stageWorld`, which runs the API's way of a whole engine.
 */
import { ownContract } from "../src/contract/contract.ts";
import { wireEngine } from "../src/core/engine.ts";
import { ApiError } from "../src/core/errors.ts";
import { Answer, type Outcome } from "../src/core/request/exchange.ts";
import { Router } from "../src/core/request/router.ts";
import type { SimulatorOptions } from "../src/core/simulator-api.ts";
import { envelope } from "../src/core/stages/around.ts";
import type { Stage } from "../src/core/stages/compose.ts";
import { way } from "../src/core/stages/compose.ts";
import { type Arrived, apiWay, arrived, type Routed } from "../src/core/stages/index.ts";
import { route } from "../src/core/stages/route.ts";
import { served } from "../src/served.ts";

export interface CallInit {
  /** A manifest user's handle whose key is sent (`stageWorld` only), or a raw Authorization value. */
  as?: string;
  authorization?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A request to `path` as a host hands it to the front door. */
export function call(method: string, path: string, init: CallInit = {}): Arrived {
  const headers = new Map(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  if (init.authorization !== undefined) headers.set("authorization", init.authorization);
  if (init.body !== undefined) headers.set("content-type", headers.get("content-type") ?? "application/json");
  const bytes = init.body === undefined ? null : new TextEncoder().encode(init.body);
  const url = `http://sim.test${path}`;
  const request = {
    method,
    url,
    headers: {
      get: (n: string) => headers.get(n.toLowerCase()) ?? null,
      has: (n: string) => headers.has(n.toLowerCase()),
    },
    body: null,
    bodyBytes: async () => bytes,
    signal: new AbortController().signal,
  };
  return arrived(request, new URL(url));
}

const router = new Router(ownContract.operations);

/** A request matched to the contract's operation, as the `route` stage hands it on. */
export function routed(method: string, path: string, init: CallInit = {}): Routed {
  let out: Routed | undefined;
  route(router).run(call(method, path, init), (c) => {
    out = c;
    return PASSED;
  });
  if (!out) throw new Error(`${method} ${path} is no operation`);
  return out;
}

/** What `next` answers in these tests: the stage passed the call on. */
export const PASSED = new Answer(299, {}, null);

/** What `stage` makes of `c`: its answer, or the call it passed on (grown by what it added). */
export async function through<In, Add>(
  stage: Stage<In, Add>,
  c: In,
): Promise<{ passed: (In & Add) | null; answer: Outcome | null }> {
  let passed: (In & Add) | null = null;
  const answer = await stage.run(c, (grown) => {
    passed = grown;
    return PASSED;
  });
  return answer === PASSED ? { passed, answer: null } : { passed: null, answer };
}

/** A world's engine for what needs one: a change made, a kept answer. */
export async function stageWorld(options: SimulatorOptions = {}) {
  const { life, ways } = wireEngine({ ...served, clock: "manual", ...options });
  await life.start();
  // The API's way behind the envelope stage, as the front door puts it.
  const api = way<Arrived>().through(envelope).end(apiWay(ways));
  /** A call; `as`: a manifest user's handle whose key is sent. */
  const callAs = (method: string, path: string, init: CallInit = {}): Arrived => {
    const user = init.as === undefined ? undefined : life.world.manifest.users[init.as];
    return call(method, path, user ? { ...init, authorization: `Bearer ${user.apiKey}` } : init);
  };
  /** The API's way's answer to `c`, a refusal rendered in the envelope. */
  const answer = async (c: Arrived): Promise<Outcome> => api(c);
  return { life, call: callAs, answer };
}

/** An answer's body as JSON (stages answer Answers; a stream or Response is not expected here). */
export function bodyOf(outcome: Outcome | null | undefined): Record<string, unknown> {
  if (!(outcome instanceof Answer)) throw new Error("not an Answer");
  const body = outcome.body;
  const text = typeof body === "string" ? body : new TextDecoder().decode(body ?? new Uint8Array());
  return JSON.parse(text) as Record<string, unknown>;
}

/** What `run` threw (an ApiError, for a refusal), or fails when it threw nothing. */
export async function refusal(run: () => unknown): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal, and the stage passed the call on");
}
