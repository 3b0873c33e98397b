/**
 * The stages every request passes, whichever way it then takes (the control plane, a page, the API): they
 * wait for the world, run the clock's due jobs, and once the answer is made, journal it, forget what the
 * core derived from a state that may have moved, turn a crash into a 500 and strip a HEAD answer's body.
 */

import type { Journal, JournalEntry } from "../control/journal.ts";
import { ApiError } from "../errors.ts";
import { Answer, LineStream, type Outcome } from "../request/exchange.ts";
import { renderError } from "../request/render.ts";
import type { Arrived } from "./call.ts";
import { type Done, rescued, type Stage, whenDone } from "./compose.ts";

/** Waits while the world is being built or a scenario's setup runs (`waitFor` says for what, or nothing). */
export function ready(waitFor: () => Promise<unknown> | null): Stage<Arrived> {
  const stage: Stage<Arrived> = {
    name: "ready",
    run(call, next) {
      const waiting = waitFor();
      return waiting === null ? next(call) : waiting.then(() => stage.run(call, next));
    },
  };
  return stage;
}

/** A HEAD answer has no body: whatever would have produced one is stopped. */
export const head: Stage<Arrived> = {
  name: "head",
  run(call, next) {
    const done = next(call);
    return call.request.method === "HEAD" ? whenDone(done, withoutBody) : done;
  },
};

async function withoutBody(response: Outcome): Promise<Outcome> {
  if (response instanceof Answer) return response.withoutBody();
  if (response instanceof LineStream) {
    response.stop();
    return new Answer(response.status, response.headers, null);
  }
  await response.body?.cancel().catch(() => {});
  return new Response(null, response);
}

export interface JournalDeps {
  journal: Pick<Journal, "add">;
  /** The world's now, as the journal states it. */
  nowIso(): string;
  /** Wall-clock milliseconds: how long an answer took. */
  wall(): number;
  /** The user whose key an `Authorization` header sends, or null (never throws). */
  senderOf(authorization: string | null): string | null;
  onRequest: ((entry: JournalEntry) => void) | undefined;
}

/**
 * Journals every answer, with its caller: the one authentication found, or, for an answer made before it
 * (an injected fault, a 404, a refusal before the key was read), whose key was sent. Reads of the control
 * plane are not kept: a polling dashboard would fill the ring.
 */
export function journaled(d: JournalDeps): Stage<Arrived> {
  return {
    name: "journal",
    run(call, next) {
      const started = d.wall();
      return whenDone(next(call), (response) => {
        const { request, path, who } = call;
        const control = path.startsWith("/__sim");
        const entry: JournalEntry = {
          at: d.nowIso(),
          method: request.method,
          path,
          status: response.status,
          ms: Math.round((d.wall() - started) * 100) / 100,
          userId: who.userId ?? (control ? null : d.senderOf(request.headers.get("authorization"))),
        };
        const reads = request.method === "GET" || request.method === "HEAD";
        if (!reads || !control) d.journal.add(entry, call.url.search, request.headers, who.body, response);
        d.onRequest?.(entry);
        return response;
      });
    },
  };
}

/** After an answer that may have moved the world (not a pure read, not keys only), `touch` forgets what was derived. */
export function forget(touch: () => void): Stage<Arrived> {
  return {
    name: "forget",
    run(call, next) {
      return whenDone(next(call), (response) => {
        if (!call.who.pure && !call.who.keysOnly) touch();
        return response;
      });
    },
  };
}

export type OnError = (error: unknown, where: { method: string; path: string }) => void;

/**
 * What is thrown and not an ApiError is a bug: told to `onError`, answered 500 in the envelope. A client
 * that went away mid-request (reading its body failed) is not one, and nobody reads its 499.
 */
export function crash(onError: OnError | undefined): Stage<Arrived> {
  return {
    name: "crash",
    run(call, next) {
      return rescued(
        () => next(call),
        (error): Done => {
          const { request, path } = call;
          if (request.signal.aborted)
            return renderError(new ApiError(499, "Client Closed Request"), path, {});
          onError?.(error, { method: request.method, path });
          return renderError(new ApiError(500), path, {});
        },
      );
    },
  };
}

/** The background jobs that fell due by the world's now run before the request sees the world. */
export function dueJobs(runDue: () => void): Stage<Arrived> {
  return {
    name: "due-jobs",
    run(call, next) {
      runDue();
      return next(call);
    },
  };
}

/** A refusal thrown by a later stage (an ApiError) is the answer: the envelope, with the headers gathered so far. */
export const envelope: Stage<Arrived> = {
  name: "envelope",
  run(call, next) {
    return rescued(
      () => next(call),
      (error) => {
        if (error instanceof ApiError) return renderError(error, call.path, call.headers);
        throw error;
      },
    );
  },
};
