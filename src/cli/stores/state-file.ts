/**
 * The snapshot half of `--state-file PATH` (the change log beside it is src/cli/stores/change-log.ts).
 *
 * Every write is atomic: the snapshot goes to a temporary file in the same directory, is fsynced, renamed
 * over the old file, and the directory is fsynced, so that at any instant (a SIGKILL, a power cut) the path
 * holds either the previous complete snapshot or the new one, never a mix.
 */
import { open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { parseSnapshot, type Snapshot, SnapshotError } from "../../core/persistence/snapshot.ts";

export class StateFileError extends Error {
  override readonly name = "StateFileError";
}

/** The saved snapshot, or null when there is no file yet. A file that cannot be used is a StateFileError. */
export async function readStateFile(path: string): Promise<Snapshot | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new StateFileError(`cannot read state file ${path}: ${(error as Error).message}`);
  }
  try {
    return parseSnapshot(text);
  } catch (error) {
    if (error instanceof SnapshotError) throw new StateFileError(`state file ${path}: ${error.message}`);
    throw error;
  }
}

let tmpCounter = 0;

/** Writes `text` to `path` atomically (temporary file, fsync, rename, fsync of the directory). */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${++tmpCounter}.tmp`);
  const file = await open(tmp, "w", 0o600);
  try {
    await file.writeFile(text, "utf8");
    await file.sync();
  } catch (error) {
    await file.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw error;
  }
  await file.close();
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes the rename durable. Some platforms cannot open or fsync a directory; there, rename is all we get. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EINVAL" && code !== "EPERM" && code !== "EBADF") throw error;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** Removes temporary files that a killed process left beside `path`; returns their names. */
export async function removeStaleTemporaries(path: string): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const stale = names.filter((n) => n.startsWith(prefix) && /^\d+\.\d+\.tmp$/.test(n.slice(prefix.length)));
  await Promise.all(stale.map((n) => unlink(join(dir, n)).catch(() => {})));
  return stale;
}
