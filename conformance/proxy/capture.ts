/**
 * `audience-research-sim capture --config FILE --out world.json`: what `proxy --record` writes, read from a
 * deployment through the API instead of from traffic, with a kit config's keys and the IDs it names as
 * readable. Each key says who it is and whether its account may list keys; each readable Audience is read
 * by the first role that may (the owner first), with its collaborators; each readable Formation likewise.
 * The config's plans are taken as stated.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Exchange } from "../lib/http/http.ts";
import { matchOperation } from "../lib/http/requests.ts";
import { ConfigError, loadConfig } from "../lib/http/target.ts";
import { userDir } from "../lib/reporting/paths.ts";
import { Recorder } from "./record.ts";
import { hash } from "./sequences.ts";

type Config = ReturnType<typeof loadConfig>;

const USAGE = `Usage: audience-research-sim capture --config FILE --out FILE

Reads a deployment through its API with the keys and IDs of a conformance kit config, and writes the
world it shows as a scenario document (serve it with: audience-research-sim serve --scenario FILE).
Reads only: nothing is changed.
`;

export async function capture(config: Config): Promise<Recorder> {
  const recorder = new Recorder();
  const base = config.baseUrl.replace(/\/$/, "");
  const prefix = config.prefix ?? "/api/v1";
  const get = async (path: string, key: string): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${base}${prefix}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    const pathname = `${prefix}${path}`.split("?")[0] as string;
    const match = matchOperation("GET", pathname);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const operation = match.kind === "found" ? match.operation : null;
    const ex = new Exchange(
      "GET",
      `${base}${prefix}${path}`,
      operation,
      {},
      null,
      null,
      res.status,
      headers,
      text,
      performance.now() - started,
    );
    recorder.observe(ex, hash(key), match);
    return res.status;
  };
  const roles = Object.entries(config.keys).filter((e): e is [string, string] => typeof e[1] === "string");
  // The owner reads first: an Audience read by its owner records its owner.
  roles.sort(([a], [b]) => (a === "owner" ? -1 : b === "owner" ? 1 : 0));
  for (const [role, key] of roles) {
    // The document calls each user by the role the config gives their key.
    recorder.name(hash(key), role);
    await get("/auth/me", key);
    await get("/api-keys", key);
    const plan = config.plans?.[role as keyof typeof config.plans];
    const userId = config.users?.[role as keyof typeof config.users];
    if (plan && userId) recorder.plan(userId, plan);
  }
  for (const id of Object.values(config.readable?.audiences ?? {})) {
    // Read on until its owner has read it (a public Audience answers every role, but says "owner" to one).
    let read = false;
    for (const [, key] of roles) {
      if ((await get(`/audiences/${id}`, key)) !== 200) continue;
      if (!read) await get(`/audiences/${id}/collaborators`, key);
      read = true;
      if (recorder.ownerKnown(id)) break;
    }
  }
  for (const f of Object.values(config.readable?.formations ?? {})) {
    const audience = config.readable?.audiences?.[f.audience];
    if (!audience) continue;
    for (const [, key] of roles)
      if ((await get(`/audiences/${audience}/formations/${f.id}`, key)) === 200) break;
  }
  return recorder;
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let values: { config?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { config: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (e) {
    process.stderr.write(`capture: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.config || !values.out) {
    process.stderr.write(`capture: --config and --out are required\n\n${USAGE}`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(resolve(userDir(), values.config));
  } catch (e) {
    process.stderr.write(`capture: ${e instanceof ConfigError ? e.message : (e as Error).message}\n`);
    return 2;
  }
  let recorder: Recorder;
  try {
    recorder = await capture(config);
  } catch (e) {
    process.stderr.write(`capture: ${config.baseUrl}: ${(e as Error).message}\n`);
    return 2;
  }
  const out = resolve(userDir(), values.out);
  writeFileSync(out, `${JSON.stringify(recorder.document(), null, 2)}\n`);
  process.stdout.write(`capture: wrote the world ${config.baseUrl} shows to ${out}\n`);
  for (const note of recorder.notes()) process.stdout.write(`  ${note}\n`);
  return 0;
}
