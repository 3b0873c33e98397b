/**
 * The simulator's engine: wires the world's lifetime (./lifetime.ts), the ways a request takes (./stages/:
 * the front door, and the replay's), pages outside the contract (./pages.ts) and replay (./replay.ts) over
 * whatever resources and scenarios it is handed. It holds no behaviour of its own.
 */

import { tokenList } from "./control/control.ts";
import { journalApi } from "./control/journal.ts";
import { worldView } from "./control/world-view.ts";
import { collectModules } from "./modules.ts";
import { promised, toResponse } from "./request/exchange.ts";
import { Pages } from "./request/pages.ts";
import { Router } from "./request/router.ts";
import type { Served, Simulator, SimulatorOptions } from "./simulator-api.ts";
import { changeMaker, frontDoor, replayWay, type WaysDeps } from "./stages/index.ts";
import { Lifetime } from "./world/lifetime.ts";
import { Replayer } from "./world/replay.ts";
import { DEFAULT_START } from "./world/scenario.ts";

export type { Served, Simulator, SimulatorOptions } from "./simulator-api.ts";
export { DEFAULT_START };

/** The engine's parts, wired: what `createEngine` serves with, and what tests that need a whole engine's parts use. */
export function wireEngine(options: SimulatorOptions & Served) {
  const { routes, jobs, inits, outside, views } = collectModules(options.resources);
  const recording = options.changes !== undefined;
  // The lifetime makes a scenario's setup steps through the replay, which is made with the lifetime.
  const life: Lifetime = new Lifetime(options, { jobs, inits }, (c) => replayer.request(c));
  const ways: WaysDeps = {
    life,
    pages: new Pages(outside, life, recording),
    router: new Router(options.contract.operations),
    routes,
    change: changeMaker(life, recording),
    validators: options.contract.validators,
    recording,
    generateBody: options.generateBody,
    verifyKeptAnswers: options.verifyKeptAnswers === true,
    onError: options.onError,
  };
  const replayer: Replayer = new Replayer({ life, way: replayWay(ways), onError: options.onError });
  return { life, ways, replayer, views };
}

export function createEngine(options: SimulatorOptions & Served): Simulator {
  const { life, ways, replayer, views } = wireEngine(options);
  const ready = life.start();

  const sim: Simulator = {
    ready,
    manifest: () => life.manifest(),
    reset: (to) => life.reset(to),
    load: (saved) => life.load(saved),
    snapshot: () => life.snapshot(),
    snapshotText: () => life.snapshotText(),
    restore: (saved) => life.restore(saved),
    advance: (ms) => life.advance(ms),
    advanceToNextJob: () => life.advanceToNextJob(),
    configure: (patch) => life.configure(patch),
    replay: async (changes) => {
      await ready;
      await replayer.replay(changes);
    },
    view: () => worldView(life.world.services, views),
    ...journalApi(life.journal, () => life.world.manifest.users),
    checkpoint: (take) => life.checkpoint(take),
    // Code outside the core (tests, a host) may change what it takes hold of, when the core cannot see it.
    get state() {
      life.memo.touch();
      return life.world.state;
    },
    get clock() {
      life.memo.touch();
      return life.world.clock;
    },
    get faults() {
      return life.faults;
    },
    config: life.config,
    journal: life.journal,
    fetch: async (request) => toResponse(await handle(request)),
    handle: (request) => promised(handle, request),
    respond: (request) => handle(request),
  };
  const handle = frontDoor({
    ...ways,
    ready,
    controlEnabled: options.control ?? true,
    control: {
      sim,
      scenarios: options.scenarios,
      resolve: life.resolve,
      documents: options.loadScenario !== undefined,
      control: { tokens: tokenList(options.controlToken) },
    },
    onRequest: options.onRequest,
  });
  return sim;
}
