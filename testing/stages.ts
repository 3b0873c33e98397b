/**
 * One stage of the request pipeline (src/core/stages/) tested alone: a world's lifetime built from this
 * package's resources and default scenario, a call made as a host would hand it, and the stages before
 * the one under test run first (each must pass the call on), so a test looks at one stage's doing.
 */
import { wireEngine } from "../src/core/engine.ts";
import { ApiError } from "../src/core/errors.ts";
import type { Outcome } from "../src/core/exchange.ts";
import { Answer } from "../src/core/exchange.ts";
import type { SimulatorOptions } from "../src/core/simulator-api.ts";
import { ApiCall, runStages, type Stage } from "../src/core/stages/index.ts";
import { served } from "../src/served.ts";

export interface CallInit {
  /** A manifest user's handle whose key is sent, or a raw Authorization value; none: no key. */
  as?: string;
  authorization?: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function stageWorld(options: SimulatorOptions = {}) {
  const { life, stages } = wireEngine({ ...served, clock: "manual", ...options });
  await life.start();
  const stage = (name: string): Stage => {
    const found = stages.find((s) => s.name === name);
    if (!found) throw new Error(`no stage ${name}`);
    return found;
  };

  const call = (method: string, path: string, init: CallInit = {}): ApiCall => {
    const headers = new Map(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const user = init.as === undefined ? undefined : life.world.manifest.users[init.as];
    if (user) headers.set("authorization", `Bearer ${user.apiKey}`);
    if (init.authorization !== undefined) headers.set("authorization", init.authorization);
    if (init.body !== undefined)
      headers.set("content-type", headers.get("content-type") ?? "application/json");
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
    const who = { userId: null, pure: false, keysOnly: false, body: null };
    return new ApiCall(request, new URL(url), new URL(url).pathname, who);
  };

  /** Runs the stages before `name` on `c` (each must pass it on) and answers what `name` does with it. */
  const runTo = async (name: string, c: ApiCall): Promise<Outcome | undefined> => {
    for (const s of stages) {
      if (s.name === name) return await s.run(c);
      const answer = await s.run(c);
      if (answer !== undefined) throw new Error(`stage ${s.name} answered ${answer.status} before ${name}`);
    }
    throw new Error(`no stage ${name}`);
  };

  /** The whole pipeline's answer to `c`, refusals rendered in the envelope. */
  const answer = (c: ApiCall): Promise<Outcome> => runStages(stages, c);

  return { life, stages, stage, call, runTo, answer };
}

/** An answer's body as JSON (stages answer Answers; a stream or Response is not expected here). */
export function bodyOf(outcome: Outcome | undefined): Record<string, unknown> {
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
