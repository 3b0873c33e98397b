/** A scratch folder for the tests of one file. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { killAllClis } from "./cli.ts";

/**
 * Made before the file's tests and removed after them, once every CLI they started is stopped (a running
 * simulator may still be writing into it). `path` names it once the tests run.
 */
export function tempDirForTests(prefix: string): { readonly path: string } {
  const dir = { path: "" };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    killAllClis();
    await rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}
