/**
 * A committed generated file is exactly what its npm script makes now: the script is read from
 * package.json and run into a scratch directory (its `-o` redirected), then compared byte for byte.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";
import { ROOT } from "./cli.ts";

/** `cli`: the generator's entry point under node_modules; `committed`: the file's path in the repository. */
export async function expectFreshGeneration(script: string, cli: string, committed: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "generated-"));
  try {
    const line = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).scripts[script] as string;
    const args = line.split(/\s+/).slice(1);
    const out = join(dir, basename(committed));
    args[args.indexOf("-o") + 1] = out;
    await promisify(execFile)(process.execPath, [join(ROOT, "node_modules", cli), ...args], { cwd: ROOT });
    expect(await readFile(join(ROOT, committed), "utf8"), `run \`npm run ${script}\``).toBe(
      await readFile(out, "utf8"),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
