/**
 * A template as data: what a build ships so that a start need not build the world it starts from
 * (scripts/build.ts writes the default scenario's through src/cli/prebuilt.ts, which hands it back to
 * keepTemplate in src/core/template.ts).
 */
import { sha256Hex } from "./auth.ts";
import { type DeferredLayout, DeferredMap, type MakerOf } from "./deferred-map.ts";
import type { Manifest } from "./manifest.ts";
import type { PendingKey } from "./scenario.ts";
import { emptyState } from "./state.ts";
import type { Template } from "./template.ts";

/**
 * A template as JSON: its tables in the order of the State, a table whose values are made on demand as its
 * layout (src/core/deferred-map.ts), which names the recipes its values are made from.
 */
export interface TemplateData {
  format: typeof TEMPLATE_FORMAT;
  scenario: string;
  seed: number;
  startTime: number;
  tables: Record<string, { entries: [string, unknown][] } | { layout: StoredLayout }>;
  extra: Record<string, [string, unknown][]>;
  manifest: Manifest;
  keys: PendingKey[];
  /** Each key with the template's own prefix, and its SHA-256 (Template.hashes). */
  hashes: [string, string][];
}

export const TEMPLATE_FORMAT = "audience-research-sim/template@1";

/**
 * A layout whose batches' keys are one string, a line each, when they can be: JSON.parse
 * reads one long string about twice as fast as the default world's 5,300 short ones.
 */
type StoredLayout = Omit<DeferredLayout<string, object>, "batches"> & {
  batches: { keys: string | string[]; recipe: unknown }[];
};

const storedLayout = (layout: DeferredLayout<string, object>): StoredLayout => ({
  entries: layout.entries,
  batches: layout.batches.map(({ keys, recipe }) => ({
    // A line each, when that can be read back: no key empty or holding a line break, and at least one.
    keys: keys.length > 0 && keys.every((k) => k !== "" && !k.includes("\n")) ? keys.join("\n") : keys,
    recipe,
  })),
});

const layoutOf = (stored: StoredLayout): DeferredLayout<string, object> => ({
  entries: stored.entries,
  batches: stored.batches.map(({ keys, recipe }) => ({
    keys: typeof keys === "string" ? keys.split("\n") : keys,
    recipe,
  })),
});

/** `template` as data; null when a table of it defers values it cannot describe (a batch without a recipe). */
export function templateData(template: Template, seed: number, startTime: number): TemplateData | null {
  const tables: TemplateData["tables"] = {};
  const extra: TemplateData["extra"] = {};
  for (const [name, table] of Object.entries(template.state) as [string, Map<string, unknown>][]) {
    if (name === "extra") {
      for (const [sub, t] of table as Map<string, Map<string, unknown>>) extra[sub] = [...t];
    } else if (table instanceof DeferredMap) {
      const layout = table.layout();
      if (layout === null) return null;
      tables[name] = { layout: storedLayout(layout) };
    } else {
      tables[name] = { entries: [...table] };
    }
  }
  const { manifest, keys } = template;
  const hashes = keys.map(({ raw }): [string, string] => [raw, sha256Hex(raw)]);
  return {
    format: TEMPLATE_FORMAT,
    scenario: manifest.scenario,
    seed,
    startTime,
    tables,
    extra,
    manifest,
    keys: [...keys],
    hashes,
  };
}

/**
 * The template `data` describes, its deferred values' makers got back by `makerOf`. The data is taken over,
 * not copied. A TypeError when it is not a template's data of this version.
 */
export function templateFromData(data: TemplateData, makerOf: MakerOf<string, object>): Template {
  if (data?.format !== TEMPLATE_FORMAT) throw new TypeError("not a template's data of this version");
  const state = emptyState();
  const tables = state as unknown as Record<string, Map<string, unknown>>;
  for (const [name, table] of Object.entries(data.tables)) {
    if (!Object.hasOwn(tables, name) || name === "extra")
      throw new TypeError(`unknown state table "${name}"`);
    tables[name] =
      "layout" in table ? DeferredMap.fromLayout(layoutOf(table.layout), makerOf) : new Map(table.entries);
  }
  for (const [name, entries] of Object.entries(data.extra)) state.extra.set(name, new Map(entries));
  return { state, manifest: data.manifest, keys: data.keys, hashes: new Map(data.hashes) };
}
