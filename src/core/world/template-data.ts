/**
 * A template as data: what a build ships so that a start need not build the world it starts from
 * (scripts/build.ts writes the default scenario's through src/cli/prebuilt.ts, which hands it back to
 * keepTemplate in src/core/world/template.ts).
 */
import { sha256Hex } from "../request/auth.ts";
import { type DeferredLayout, DeferredMap, type MakerOf } from "./deferred-map.ts";
import { lazyTables } from "./lazy-tables.ts";
import type { Manifest } from "./manifest.ts";
import type { PendingKey } from "./scenario.ts";
import { emptyState, type State } from "./state.ts";
import type { Template } from "./template.ts";

/**
 * A template as JSON: its tables in the order of the State, a table whose values are made on demand as its
 * layout (src/core/world/deferred-map.ts), which names the recipes its values are made from.
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

export const TEMPLATE_FORMAT = "audience-research-sim/template@2";

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
 * The text a build ships for `data`: a line of JSON for all but the tables, then a line of JSON per table,
 * in the order the first line names them, so that a start parses a table only when a world first reads it
 * (templateFromLines). In ASCII, what is not escaped as JSON allows: a reader may take a byte for a character
 * (latin1 is read without decoding, which UTF-8 is not).
 */
export function templateText(data: TemplateData): string {
  const { tables, ...header } = data;
  const lines = [JSON.stringify({ ...header, tables: Object.keys(tables) })];
  for (const table of Object.values(tables)) lines.push(JSON.stringify(table));
  return lines
    .join("\n")
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

type Header = Omit<TemplateData, "tables"> & { tables: string[] };

/**
 * A template's text as its lines, each read when asked for: a start takes them from the file's bytes, and a
 * table's line becomes a string only when a world first reads the table.
 */
export interface TemplateLines {
  readonly count: number;
  line(index: number): string;
}

/** What templateFromLines read: the template, and whose it says it is. */
export interface TextTemplate {
  scenario: string;
  seed: number;
  startTime: number;
  template: Template;
}

/**
 * The template whose text (templateText's) `lines` are, its deferred values' makers got back by `makerOf`;
 * a TypeError when the first line is not a template's of this version, or the tables it names are not the
 * lines that follow. A table is parsed when a world first reads it: one that cannot be (a line that is not
 * its JSON) is asked of `rescue`, which a start answers by building the scenario (src/cli/prebuilt.ts),
 * rather than failing a request long after the start.
 */
export function templateFromLines(
  lines: TemplateLines,
  makerOf: MakerOf<string, object>,
  rescue: (table: string, error: Error) => unknown,
): TextTemplate {
  const header = JSON.parse(lines.line(0)) as Header;
  if (header?.format !== TEMPLATE_FORMAT) throw new TypeError("not a template's data of this version");
  const names = Object.keys(emptyState());
  const unknown = header.tables.find((name) => !names.includes(name) || name === "extra");
  if (unknown !== undefined) throw new TypeError(`unknown state table "${unknown}"`);
  if (lines.count !== header.tables.length + 1)
    throw new TypeError(`${lines.count - 1} table lines for ${header.tables.length} tables`);
  const state = lazyTables<State>(names, (name) => {
    if (name === "extra")
      return new Map(Object.entries(header.extra).map(([sub, entries]) => [sub, new Map(entries)]));
    const at = header.tables.indexOf(name);
    if (at === -1) return emptyState()[name as keyof State];
    try {
      return tableOf(JSON.parse(lines.line(at + 1)), makerOf);
    } catch (error) {
      return rescue(name, error as Error);
    }
  });
  const { manifest, keys, hashes } = header;
  return {
    scenario: header.scenario,
    seed: header.seed,
    startTime: header.startTime,
    template: { state, manifest, keys, hashes: new Map(hashes) },
  };
}

function tableOf(stored: TemplateData["tables"][string], makerOf: MakerOf<string, object>): unknown {
  if (stored !== null && typeof stored === "object") {
    if ("layout" in stored) return DeferredMap.fromLayout(layoutOf(stored.layout), makerOf);
    if (Array.isArray(stored.entries)) return new Map(stored.entries);
  }
  throw new TypeError("neither entries nor a layout");
}
