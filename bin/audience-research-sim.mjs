#!/usr/bin/env node
// audience-research-sim: one program for the simulator (`serve`), the conformance kit (`conformance`), the
// validating proxy (`proxy`) and `capture` (a deployment's world as a scenario document).
// Plain JavaScript on purpose: it only picks the bundle to run (dist/, built by scripts/build.ts), so it
// needs no TypeScript loader and no test framework.
import { fileURLToPath } from "node:url";

// Before any bundle is imported: on an older Node the bundles fail to link (a SyntaxError about a missing
// export of node:module) long before they could say why. This import exists on every Node since 12.
const MAJOR = Number(process.versions.node.split(".")[0]);
if (MAJOR < 22) {
  process.stderr.write(`audience-research-sim needs Node 22 or newer; this is v${process.versions.node}\n`);
  process.exit(2);
}
// node:fs without an ES module namespace: building one reads every export, and the lazy ones (fs.promises,
// the streams) load some 20 of Node's modules the server has no use for before its first answer.
const { existsSync, readFileSync } =
  process.getBuiltinModule?.("node:fs") ??
  (await import("node:module")).createRequire(import.meta.url)("node:fs");

const COMMANDS = {
  serve: { bundle: "../dist/main.mjs", about: "serve the simulator over HTTP (the options of npm start)" },
  conformance: {
    bundle: "../dist/conformance.mjs",
    about: "check a simulator or a deployment against the contract",
  },
  // The validating proxy shares the kit's bundle: it judges exchanges with the kit's own checks.
  proxy: {
    bundle: "../dist/conformance.mjs",
    about: "forward live traffic to an API and check every exchange against the contract",
  },
  capture: {
    bundle: "../dist/conformance.mjs",
    about: "read a deployment with a kit config's keys and write its world as a scenario document",
  },
};

const HELP = `Usage: audience-research-sim <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(13)}${c.about}`)
  .join("\n")}

Options:
  -h, --help     this text; "audience-research-sim <command> --help" for a command's options
  -v, --version  the version
`;

const [command, ...rest] = process.argv.slice(2);
if (command === undefined || command === "-h" || command === "--help" || command === "help") {
  process.stdout.write(HELP);
  process.exit(command === undefined ? 2 : 0);
}
if (command === "-v" || command === "--version") {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
const chosen = COMMANDS[command];
if (!chosen) {
  process.stderr.write(`audience-research-sim: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
  process.exit(2);
}
const bundle = new URL(chosen.bundle, import.meta.url);
if (!existsSync(fileURLToPath(bundle))) {
  process.stderr.write(
    `audience-research-sim: ${fileURLToPath(bundle)} is missing; in a clone, run npm run build\n`,
  );
  process.exit(2);
}
// The command's own argument parser reads process.argv from its third entry on.
process.argv = [process.argv[0], `audience-research-sim ${command}`, ...rest];
await import(bundle.href);
