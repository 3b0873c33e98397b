/**
 * Scenario templates: a scenario built once per seed and start time, then copied into every world that
 * asks for it, so that a reset or a new sandbox costs a copy rather than a build, and a thousand
 * sandboxes of one seed hold one set of Minds between them.
 *
 * What is shared and what is copied is decided by freezing: the template's Mind records (the bulk of a
 * world: 5,000 of them in the default scenario) are frozen and shared by reference, and every other
 * record is copied, strings included by reference (they are immutable anyway); the Minds table is a
 * LayeredMap over the template's. A Mind therefore never changes in place; its state machine replaces
 * the record (src/resources/progress/training.ts), and code that tried otherwise would throw in the first
 * test that ran it.
 */

import { createRng } from "../../generators/prng.ts";
import { madeEntries } from "./deferred-map.ts";
import { LayeredMap } from "./layered-map.ts";
import { lazyTables } from "./lazy-tables.ts";
import type { Manifest } from "./manifest.ts";
import type { PendingKey, Scenario } from "./scenario.ts";
import type { State } from "./state.ts";

/** The prefix a template's keys are made with; a world swaps in its own. */
export const TEMPLATE_KEY_PREFIX = "service_";

export interface Template {
  /** Never handed out: worlds get `copyState(template.state)`. */
  state: State;
  manifest: Manifest;
  keys: readonly PendingKey[];
  /**
   * The SHA-256 of each key as worlds with the template's own prefix hold it, filled by the first such
   * world (src/core/world/world.ts) and shipped with a template made ahead: a reset of the default world, and
   * its first build, hash nothing.
   */
  hashes: Map<string, string>;
}

/** Per scenario, the templates of the seeds last used; bounded so many seeds cannot grow memory. */
const templates = new WeakMap<Scenario, Map<string, Template>>();
const KEPT_PER_SCENARIO = 4;

export function templateOf(scenario: Scenario, seed: number, startTime: number): Template {
  const bySeed = templates.get(scenario);
  const key = `${seed}:${startTime}`;
  const known = bySeed?.get(key);
  if (bySeed && known) {
    // Most recently used last, so the oldest goes first.
    bySeed.delete(key);
    bySeed.set(key, known);
    return known;
  }
  return keepTemplate(scenario, seed, startTime, buildTemplate(scenario, seed, startTime));
}

/** The template of `scenario` at `seed` and `startTime`, built anew and not kept (templateOf keeps it). */
export function buildTemplate(scenario: Scenario, seed: number, startTime: number): Template {
  const built = scenario.build({ rng: createRng(seed).fork("scenario"), seed, now: startTime });
  return { state: built.state, manifest: built.manifest, keys: built.keys, hashes: new Map() };
}

/**
 * Keeps `template` as the one of `scenario` at `seed` and `startTime` (the next `templateOf` of them returns
 * it), its Minds made so far frozen; `template` itself. A template made ahead (template-data.ts) is kept so.
 */
export function keepTemplate(
  scenario: Scenario,
  seed: number,
  startTime: number,
  template: Template,
): Template {
  let bySeed = templates.get(scenario);
  if (!bySeed) {
    bySeed = new Map();
    templates.set(scenario, bySeed);
  }
  // Those made so far: a Mind made on demand is frozen with this as it is made (ScenarioBuilder.lazyMinds).
  for (const [, mind] of madeEntries(template.state.minds)) deepFreeze(mind);
  const key = `${seed}:${startTime}`;
  bySeed.delete(key);
  if (bySeed.size >= KEPT_PER_SCENARIO) bySeed.delete(bySeed.keys().next().value as string);
  bySeed.set(key, template);
  return template;
}

/**
 * A world's own state from a template: frozen records shared, everything else copied, each table when it is
 * first read (src/core/world/lazy-tables.ts; a world that never reads its Audiences never copies them). The Minds
 * table itself is layered over the template's, not copied: most worlds change a few of its thousands of
 * entries. The tables are in the template's order (a snapshot lists them in it).
 */
export function copyState(template: State): State {
  const tables = template as unknown as Record<string, unknown>;
  return lazyTables<State>(Object.keys(template), (name) =>
    name === "minds" ? new LayeredMap(template.minds) : copy(tables[name]),
  );
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return value.map(copy);
  if (value instanceof Map) {
    const out = new Map();
    for (const [k, v] of value) out.set(k, copy(v));
    return out;
  }
  if (value instanceof Set) return new Set([...value].map(copy));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null)
    throw new Error(`a scenario left a ${proto?.constructor?.name ?? "foreign"} object in the state`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = copy(v);
  return out;
}

/** `value` frozen all the way down (what is frozen already is left as it is); `value` itself. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
