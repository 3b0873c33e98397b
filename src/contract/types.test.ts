// The committed src/contract/types.gen.ts is exactly what `npm run generate:types` makes from openapi.json now.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const COMMITTED = join(REPO, "src", "contract", "types.gen.ts");
const CLI = join(REPO, "node_modules", "openapi-typescript", "bin", "cli.js");
const HINT = "src/contract/types.gen.ts does not match openapi.json: run `npm run generate:types`";

/** Runs the same CLI with the same arguments as `npm run generate:types`, writing to a temporary file. */
async function generate(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "contract-types-"));
  try {
    const out = join(dir, "types.gen.ts");
    // The npm script's own arguments (the Redocly config it lints with first included), its output moved.
    const script = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")).scripts[
      "generate:types"
    ] as string;
    const args = script.split(/\s+/).slice(1);
    args[args.indexOf("-o") + 1] = out;
    await promisify(execFile)(process.execPath, [CLI, ...args], { cwd: REPO }).catch(
      (error: { stderr?: string }) => {
        // openapi-typescript lints the document with .redocly.yaml first and stops on any lint error.
        throw new Error(
          `openapi-typescript could not generate types from openapi.json:\n${error.stderr ?? error}`,
        );
      },
    );
    return await readFile(out, "utf8");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function firstDifference(a: string, b: string): string {
  const left = a.split("\n");
  const right = b.split("\n");
  const line = left.findIndex((l, i) => l !== right[i]);
  const at = line === -1 ? left.length : line;
  return `first difference at line ${at + 1}:\n  committed: ${JSON.stringify(left[at])}\n  generated: ${JSON.stringify(right[at])}`;
}

describe("generated types", () => {
  it("match a fresh generation from openapi.json", async () => {
    const fresh = await generate();
    const committed = await readFile(COMMITTED, "utf8").catch(() => undefined);
    expect(committed, `${HINT} (the file is missing)`).toBeDefined();
    if (committed !== fresh) expect.fail(`${HINT}\n${firstDifference(committed ?? "", fresh)}`);
  });
});
