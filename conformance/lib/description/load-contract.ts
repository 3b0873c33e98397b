/** `--contract FILE|URL`: a contract from a file (relative to where the user runs the command) or a URL. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { userDir } from "../reporting/paths.ts";

export async function loadContract(source: string): Promise<unknown> {
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`answered ${res.status}`);
    return res.json();
  }
  return JSON.parse(readFileSync(resolve(userDir(), source), "utf8"));
}
