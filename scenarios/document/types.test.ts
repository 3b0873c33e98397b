// The committed types.gen.ts is exactly what `npm run generate:scenario-types` makes from the schema now.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(REPO, "node_modules", "json-schema-to-typescript", "dist", "src", "cli.js");

it("match a fresh generation from scenario.schema.json", async () => {
  const dir = await mkdtemp(join(tmpdir(), "scenario-types-"));
  try {
    const script = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")).scripts[
      "generate:scenario-types"
    ] as string;
    const args = script.split(/\s+/).slice(1);
    const out = join(dir, "types.gen.ts");
    args[args.indexOf("-o") + 1] = out;
    await promisify(execFile)(process.execPath, [CLI, ...args], { cwd: REPO });
    const fresh = await readFile(out, "utf8");
    const committed = await readFile(join(REPO, "scenarios", "document", "types.gen.ts"), "utf8");
    expect(committed, "run `npm run generate:scenario-types`").toBe(fresh);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
