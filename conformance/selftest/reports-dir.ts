/**
 * A test file's kit reports in a scratch directory of its own (CONFORMANCE_REPORTS_DIR for the file's
 * tests, put back and removed after), so that runs side by side never write over each other's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export function scratchReports(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const before = process.env.CONFORMANCE_REPORTS_DIR;
  beforeAll(() => {
    process.env.CONFORMANCE_REPORTS_DIR = dir;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.CONFORMANCE_REPORTS_DIR;
    else process.env.CONFORMANCE_REPORTS_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
