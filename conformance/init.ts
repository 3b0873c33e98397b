/**
 * `audience-research-sim conformance init --target URL [--control-token T] [--out FILE]`: writes a config
 * that runs as it is. From a simulator or a sandbox (its manifest answers), every field is filled in from
 * the manifest; from a deployment, every field the checks use is written with what to put there, and the
 * config checker, run on it at once, lists each one still to fill by its JSON pointer.
 */
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  ConfigError,
  controlBaseOf,
  loadConfig,
  probeSimulator,
  ROLES,
  UnreachableError,
} from "./lib/http/target.ts";
import { configOf } from "./lib/planning/config-of.ts";
import { userDir } from "./lib/reporting/paths.ts";

export const INIT_USAGE = `Usage: audience-research-sim conformance init --target URL [options]

Writes a deployment config for the kit (--config FILE) and says what is left to fill in.
  --target URL          the API's base URL (a simulator's or a sandbox's: filled in from its manifest)
  --control-token T     the simulator's x-sim-control-token, if its control plane has one
  --sandbox ID          a sandbox of that simulator (its world, keys and IDs)
  --out FILE            where to write it (default conformance.config.json; an existing file is kept
                        unless --force)
  --force               write over --out
  -h, --help            this text
`;

/** What a field of a deployment's config holds, for the person who fills it in. */
const TODO = {
  audiences: {
    main: "<ID of an Audience of the owner's, shared with the owner's team, with members, grounding and an uploaded file>",
    private: "<ID of an Audience of the owner's that is not shared>",
    public: "<ID of a public Audience of the publisher's>",
    large: "<ID of an Audience with more than 5000 members>",
    atCap: "<ID of an Audience of the owner's at its plan's member cap>",
    empty: "<ID of an Audience of the owner's with no members>",
  },
  minds: {
    ownLoose: "<ID of a Mind of the owner's in no Audience>",
    publicMind: "<ID of a Mind of a public Audience>",
    foreignMind: "<ID of a Mind the owner cannot see>",
    mainMember: "<ID of a Mind that is a member of main>",
  },
};

export async function init(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        target: { type: "string" },
        "control-token": { type: "string" },
        sandbox: { type: "string" },
        out: { type: "string" },
        force: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    process.stderr.write(`conformance init: ${(e as Error).message}\n\n${INIT_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(INIT_USAGE);
    return 0;
  }
  const target = String(values.target ?? "").replace(/\/$/, "");
  if (!/^https?:\/\//.test(target)) {
    process.stderr.write(`conformance init: --target URL (http or https) is required\n\n${INIT_USAGE}`);
    return 2;
  }
  // Relative to where the user ran the command (npm run sets the working directory to the project's root).
  const named = String(values.out ?? "conformance.config.json");
  const out = resolve(userDir(), named);
  if (existsSync(out) && !values.force) {
    process.stderr.write(`conformance init: ${named} exists; --force writes over it, --out names another\n`);
    return 2;
  }
  const token = (values["control-token"] as string | undefined) ?? null;
  const base = controlBaseOf(target, (values.sandbox as string) ?? null);
  let manifest: Awaited<ReturnType<typeof probeSimulator>>;
  try {
    manifest = await probeSimulator(base, token);
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
    process.stderr.write(`conformance init: ${e.message}\n`);
    return 2;
  }
  const config = manifest
    ? configOf(manifest, target, { rateLimitPerMinute: await rateLimitOf(base, token) })
    : deploymentTemplate(target);
  writeFileSync(out, `${JSON.stringify(config, null, 2)}\n`);
  return report(out, named, manifest !== null);
}

/** The simulator's rate limit per account (its control plane's config), for the 429 check; null if unread. */
async function rateLimitOf(base: string, token: string | null): Promise<number | null> {
  const res = await fetch(`${base}/config`, { headers: token ? { "x-sim-control-token": token } : {} });
  const body = (await res.json().catch(() => null)) as { rateLimitPerMinute?: unknown } | null;
  return typeof body?.rateLimitPerMinute === "number" ? body.rateLimitPerMinute : null;
}

/** Every field the checks use, each with what to put there; keys name environment variables. */
function deploymentTemplate(baseUrl: string): Record<string, unknown> {
  const envName = (role: string) =>
    `$CONFORMANCE_KEY_${role.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
  return {
    description:
      "Written by `conformance init` for a deployment: put the IDs of your staging world where it says <...>, set the CONFORMANCE_KEY_* variables to the API keys of each role's account, and remove the roles and handles you have not got (the run names the checks that then cannot run).",
    baseUrl,
    keys: Object.fromEntries(ROLES.map((r) => [r, envName(r)])),
    readable: {
      audiences: Object.fromEntries(
        Object.entries(TODO.audiences).filter(([h]) => h !== "atCap" && h !== "empty"),
      ),
      minds: TODO.minds,
      formations: {
        mainReady: { id: "<ID of a ready Formation of main>", audience: "main" },
        teammatePrivate: {
          id: "<ID of a Formation of main the teammate made and keeps private>",
          audience: "main",
        },
      },
    },
    changeable: {
      audiences: {
        main: TODO.audiences.main,
        private: TODO.audiences.private,
        atCap: TODO.audiences.atCap,
        empty: TODO.audiences.empty,
      },
    },
    rateLimitPerMinute: 300,
    consumable: { collaborator: { audience: "main", role: "admin" } },
  };
}

/** Says what was written, and, run through the config checker, what is left to fill in. */
function report(out: string, named: string, fromManifest: boolean): number {
  const env = Object.fromEntries(
    ROLES.map((r) => [
      `CONFORMANCE_KEY_${r.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
      "service_placeholder",
    ]),
  );
  try {
    loadConfig(out, { ...env, ...process.env });
    process.stdout.write(
      `wrote ${named}${fromManifest ? " from the simulator's manifest" : ""}; run it with:\n  audience-research-sim conformance --config ${named}\n`,
    );
    return 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const left = e.message.split("\n").slice(1).join("\n");
    process.stdout.write(
      `wrote ${named}; fill in what the checker names below, then set the CONFORMANCE_KEY_* variables and run:\n  audience-research-sim conformance --config ${named}\n${left}\n`,
    );
    return 0;
  }
}
