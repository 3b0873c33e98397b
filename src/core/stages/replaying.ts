/**
 * What the replay's way does differently from a request's (./index.ts builds it): the call holds the
 * recorded change; its caller is the recorded key's owner (a recorded change keeps no key), its body the
 * recorded text, and a write to a page is made again at the instant it was first made.
 */

import type { RequestChange } from "../persistence/changes.ts";
import type { Pages } from "../request/pages.ts";
import type { State } from "../world/state.ts";
import { takenAsRecorded } from "./body.ts";
import type { Arrived, Authorized, CallerPart, Routed } from "./call.ts";
import { grown, type Stage } from "./compose.ts";

/** A recorded change on its way to being made again. */
export type Replaying = Arrived & { readonly change: RequestChange };

/** A write to a page the page claims is made again there; the rest passes on. */
export function replayedPages(p: Pages): Stage<Replaying> {
  return {
    name: "pages",
    run(call, next) {
      const { request, url, path } = call;
      const write = request.method !== "GET" && request.method !== "HEAD";
      if (!write || !p.claims(path)) return next(call);
      return p.change(request, url, call.change.at).then((answer) => answer ?? next(call));
    },
  };
}

/** The owner of the key the change was made with, if it still exists; nobody for a public operation. */
export function recordedCaller(state: () => State): Stage<Routed & Replaying, CallerPart> {
  return {
    name: "recorded caller",
    run(call, next) {
      const { keyId } = call.change;
      const key = keyId === null ? undefined : state().apiKeys.get(keyId);
      const user = key ? state().users.get(key.userId) : undefined;
      return next(grown(call, { caller: key && user ? { key, user } : null }));
    },
  };
}

/** The recorded body, taken as the request's. */
export const takenAsRecordedBody = (call: Authorized & Replaying) => takenAsRecorded(call, call.change.body);
