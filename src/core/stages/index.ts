/**
 * The ways a request takes, built from the stages beside this file (each handed only what it uses, each
 * with its own tests). Every request a simulator is handed takes the front door:
 *
 *   ready → head → journal → forget → crash → due-jobs → envelope → control → pages
 *     → route → fault → authenticate → rate-limit → prefer → authorize → body → latency → execute
 *
 * and a recorded change made again (a restart's log, a sandbox brought back, a scenario's setup step)
 * takes the replay's way, from the same stages where it does the same:
 *
 *   pages → route → recorded caller → authorize → body (as recorded) → one change at its instant
 */
import type { Validators } from "../../contract/validate.ts";
import type { ControlDeps } from "../control/control.ts";
import { ApiError } from "../errors.ts";
import { authenticate as findCaller } from "../request/auth.ts";
import { Answer, LineStream, type Outcome, type SimRequest } from "../request/exchange.ts";
import type { Pages } from "../request/pages.ts";
import { parsedUrl } from "../request/parsed-url.ts";
import type { GenerateBody } from "../request/preferred-answers.ts";
import { isResponse, renderError } from "../request/render.ts";
import type { Router } from "../request/router.ts";
import type { Reply, RouteSpec } from "../resource.ts";
import type { Lifetime } from "../world/lifetime.ts";
import { crash, dueJobs, envelope, forget, head, journaled, type OnError, ready } from "./around.ts";
import { authenticate } from "./authenticate.ts";
import { authorize } from "./authorize.ts";
import { body } from "./body.ts";
import { type Arrived, arrived } from "./call.ts";
import type { MakeChange } from "./change.ts";
import { type Done, type Next, way } from "./compose.ts";
import { execute } from "./execute.ts";
import { fault } from "./fault.ts";
import { latency } from "./latency.ts";
import { prefer } from "./prefer.ts";
import { rateLimit } from "./rate-limit.ts";
import { type Replaying, recordedCaller, replayedPages, takenAsRecordedBody } from "./replaying.ts";
import { route } from "./route.ts";
import { control, pages } from "./ways.ts";

export interface WaysDeps {
  life: Lifetime;
  pages: Pages;
  /** Built once from the contract's operations; the replay matches with the same one. */
  router: Router;
  routes: ReadonlyMap<string, RouteSpec>;
  change: MakeChange;
  validators: Validators;
  recording: boolean;
  generateBody: GenerateBody | undefined;
  verifyKeptAnswers: boolean;
  onError: OnError | undefined;
}

export interface FrontDoorDeps extends WaysDeps {
  /** The control plane's view of the simulator. */
  control: ControlDeps;
  /** Whether the control plane is served at all (off: its paths are 404). */
  controlEnabled: boolean;
  ready: Promise<void>;
  onRequest: Parameters<typeof journaled>[0]["onRequest"];
}

/** What the world-reading stages are handed: the lifetime's world as it is when they ask. */
function worldReaders(life: Lifetime) {
  return {
    callerOf: (authorization: string | null) => findCaller(life.world.state, authorization),
    services: () => life.world.services,
    now: () => life.world.clock.now(),
    ceiling: () => life.config.rateLimitPerMinute,
    /** A step that may change the world, in its turn of the serial section. */
    changing: <T>(step: () => Promise<T>) => life.recorder.changing(step),
  };
}

/** The API's way, from the route on (after the control plane and the pages let a request by), to `execute`. */
export function apiWay(d: WaysDeps): Next<Arrived> {
  const { life } = d;
  const w = worldReaders(life);
  return way<Arrived>()
    .through(route(d.router))
    .through(fault({ take: (m, p) => life.faults.take(m, p), sleep: life.sleep }))
    .through(authenticate(w))
    .through(rateLimit((userId) => life.limiter.take(userId, w.now(), w.ceiling())))
    .through(
      prefer({
        delay: () => life.delay(),
        seed: () => life.nextPreferSeed(),
        generateBody: d.generateBody,
        pointers: life.contract,
      }),
    )
    .through(
      authorize({ routes: d.routes, validators: d.validators, services: w.services, recording: d.recording }),
    )
    .through(body(d.validators))
    .through(latency({ configured: () => life.config.latencyMs !== 0, delay: () => life.delay() }))
    .end(execute({ memo: life.memo, changing: w.changing, change: d.change, verify: d.verifyKeptAnswers }));
}

/**
 * The handler of every request a simulator is handed: the answer itself when it is ready in this turn (a
 * kept read), else its promise. A failure is thrown or rejected as the stages raise it.
 */
export function frontDoor(d: FrontDoorDeps): (request: SimRequest) => Done {
  const { life } = d;
  const w = worldReaders(life);
  const api = apiWay(d);
  const front = way<Arrived>()
    .through(ready(() => (!life.built ? d.ready : life.setupDone)))
    .through(head)
    .through(
      journaled({
        journal: life.journal,
        nowIso: () => life.world.clock.nowIso(),
        wall: life.wall,
        senderOf: (authorization) => {
          try {
            return authorization === null ? null : (w.callerOf(authorization)?.user.id ?? null);
          } catch {
            // The answer may be the 500 of a state a bug broke: journaling it must not throw again.
            return null;
          }
        },
        onRequest: d.onRequest,
      }),
    )
    .through(forget(() => life.memo.touch()))
    .through(crash(d.onError))
    .through(dueJobs(() => runDue(life)))
    .through(envelope)
    .through(control(d.control, d.controlEnabled, w.changing))
    .through(pages(d.pages, w.changing))
    .end(api);
  return (request) => {
    const parsed = parsedUrl(request.url);
    // Only a host that passes its own target can get here with one that is not a URL.
    if (parsed === null) return renderError(new ApiError(400, "Bad Request"), "", {});
    return front(arrived(request, parsed.url, parsed.path));
  };
}

/** The clock's due jobs, run; a clock that ran any is recorded at its new instant. */
function runDue(life: Lifetime): void {
  const clock = life.world.clock;
  const ran = clock.ran;
  const at = clock.runDue();
  if (clock.ran !== ran) life.record({ kind: "time", at }, false);
}

/** The replay's way: what makes one recorded change again. */
export function replayWay(d: WaysDeps): Next<Replaying> {
  const { life } = d;
  const services = () => life.world.services;
  return way<Replaying>()
    .through(replayedPages(d.pages))
    .through(route(d.router))
    .through(recordedCaller(() => life.world.state))
    .through(authorize({ routes: d.routes, validators: d.validators, services, recording: false }))
    .through(body(d.validators, takenAsRecordedBody))
    .end((call) => d.change(call.ctx, call.spec, call.raw, null, call.change.at).then(asOutcome));
}

/** A replayed change's answer: its status is all anyone reads, so a reply is not rendered. */
function asOutcome(made: Reply | Outcome): Outcome {
  if (made instanceof Answer || made instanceof LineStream || isResponse(made)) return made;
  return new Answer(made.status, {}, null);
}

export { type Arrived, arrived, type Routed, type Who } from "./call.ts";
export { changeMaker, type MakeChange } from "./change.ts";
export type { Replaying } from "./replaying.ts";
