/**
 * The default world, built when the package is (scripts/build.ts writes it beside the bundle as
 * dist/templates/default-1.json) rather than at every start: building it was the larger part of the time
 * from `serve` to its first answer (about 15 ms of 65). The data is the template the build would make
 * (src/core/world/template-data.ts), its 5,300 deferred Minds as the recipes they are made from; a start
 * hands it to the core, which copies worlds from it as from one it built. Run from the sources there is no
 * such file, and the world is built.
 */
import { readFileSync } from "node:fs";
import { DEFAULT_START } from "../core/world/scenario.ts";
import { buildTemplate, keepTemplate, type Template, templateOf } from "../core/world/template.ts";
import type { TemplateData, TemplateLines } from "../core/world/template-data.ts";
import { templateData, templateFromLines, templateText } from "../core/world/template-data.ts";
import { deferredMindMaker } from "../scenarios/builder.ts";
import { findScenario } from "../scenarios/index.ts";

/** The worlds made ahead: what `serve` builds with no options. */
export const PREBUILT = [{ scenario: "default", seed: 1 }] as const;

/** Where a build keeps the templates: beside the module (dist/ once bundled). */
const BESIDE = new URL("./templates/", import.meta.url);

/** The data of a built-in scenario's template at `seed`, as a build writes it. */
export function prebuiltData(scenario: string, seed: number): TemplateData {
  const code = findScenario(scenario);
  if (!code) throw new Error(`no built-in scenario ${scenario}`);
  const data = templateData(templateOf(code, seed, DEFAULT_START), seed, DEFAULT_START);
  if (!data) throw new Error(`scenario ${scenario} defers values it cannot describe`);
  return data;
}

/** The file a build writes for a built-in scenario's template at `seed` (src/core/world/template-data.ts's text). */
export function prebuiltText(scenario: string, seed: number): string {
  return templateText(prebuiltData(scenario, seed));
}

/**
 * Hands the core the template of the built-in `scenario` at `seed` (null: the default seed) when a build
 * made it ahead; true when it did. A file that cannot be read or is not such a template is passed over
 * with a note: the world is then built, as from the sources. A table found unreadable later, when a world
 * first reads it, is taken from the scenario built then, with a note: the same table, a little later.
 */
export function keepPrebuilt(scenario: string, seed: number | null, dir: URL = BESIDE): boolean {
  const wanted = PREBUILT.find((p) => p.scenario === scenario && p.seed === (seed ?? p.seed));
  const code = findScenario(scenario);
  if (!wanted || !code) return false;
  const file = new URL(`${wanted.scenario}-${wanted.seed}.json`, dir);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return false;
  }
  let built: Template | undefined;
  const rescue = (table: string, error: Error): unknown => {
    process.stderr.write(
      `note: ${file.pathname}: table ${table} passed over (${error.message}); building the world\n`,
    );
    built ??= buildTemplate(code, wanted.seed, DEFAULT_START);
    return (built.state as unknown as Record<string, unknown>)[table];
  };
  try {
    const read = templateFromLines(linesOfBytes(bytes), deferredMindMaker, rescue);
    if (read.scenario !== code.name || read.seed !== wanted.seed || read.startTime !== DEFAULT_START)
      throw new TypeError("it is another world's");
    keepTemplate(code, read.seed, read.startTime, read.template);
    return true;
  } catch (error) {
    process.stderr.write(
      `note: ${file.pathname} passed over (${(error as Error).message}); building the world\n`,
    );
    return false;
  }
}

/**
 * The lines of a template's file, each made a string when asked for: the tables no world reads stay bytes
 * outside the heap (the default world's Audiences, 250 KB, until a request reads them). In ASCII
 * (templateText): a byte is a character, and latin1 is read without decoding.
 */
export function linesOfBytes(bytes: Buffer): TemplateLines {
  const ends: number[] = [];
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) ends.push(at);
  ends.push(bytes.length);
  return {
    count: ends.length,
    line: (index) => bytes.toString("latin1", index === 0 ? 0 : (ends[index - 1] as number) + 1, ends[index]),
  };
}
