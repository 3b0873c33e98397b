/**
 * `serve --scenario FILE --watch`: an edit of the scenario file is served at once, as a reset to the new
 * document; an edit with problems prints them and the last good world keeps serving.
 *
 * The directory is watched, not the file: editors save by writing a new file and renaming it over the old
 * one, which a watch on the old file's inode would never see again. Events come in bursts (write, rename,
 * change), so a reload waits for the file to be quiet for a moment, and never runs twice at once.
 */
import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { ResetTo } from "../core/simulator-api.ts";
import type { Manifest } from "../core/world/manifest.ts";

export interface Watched {
  /** The world made anew from the document; rejects (a ScenarioError) and leaves the world if it cannot. */
  reset(to: ResetTo): Promise<Manifest>;
  /** A line for the operator: what was reloaded. */
  say(line: string): void;
  /** A line for the operator: why the file was not reloaded. */
  warn(line: string): void;
  /** The problems of a document that could not be loaded, one per line; null when `error` is no such. */
  problems(error: unknown): string | null;
  seed: number | null;
}

/** How long the file must be quiet before it is read: a save is several events within a few ms. */
const QUIET_MS = 60;

/** Starts watching; the function returned stops. */
export function watchScenarioFile(file: string, w: Watched): () => void {
  const path = resolve(file);
  const name = basename(path);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let last: string | null = null;

  const reload = async (): Promise<void> => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      return; // Between an editor's unlink and rename: the next event brings the file back.
    }
    if (text === last) return;
    last = text;
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      w.warn(`watch: ${file} is not JSON (${(error as Error).message}); still serving the last good world`);
      return;
    }
    if (document === null || typeof document !== "object" || Array.isArray(document)) {
      w.warn(`watch: ${file} is not a scenario document (a JSON object); still serving the last good world`);
      return;
    }
    try {
      const m = await w.reset({
        scenario: document,
        ...(w.seed !== null ? { seed: w.seed } : {}),
        adopt: true,
      });
      w.say(`watch: ${file} changed; serving scenario ${m.scenario} (seed ${m.seed}) afresh`);
    } catch (error) {
      const lines = w.problems(error);
      if (lines === null) throw error;
      w.warn(`watch: ${file} has problems; still serving the last good world:\n${lines}`);
    }
  };

  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = reload()
      .catch((error: unknown) => w.warn(`watch: reloading ${file} failed: ${(error as Error).message}`))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };

  // The text served now, so that an event without a change (a touch) reloads nothing.
  readFile(path, "utf8").then(
    (text) => {
      last ??= text;
    },
    () => {},
  );
  const watcher: FSWatcher = watch(dirname(path), (_event, changed) => {
    if (changed !== null && changed.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(run, QUIET_MS);
  });
  watcher.on("error", (error) => w.warn(`watch: ${file}: ${error.message}; no longer watching`));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
