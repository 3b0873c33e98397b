#!/usr/bin/env node
// audience-research-sim: one program for the simulator (`serve`), the conformance kit (`conformance`), the
// validating proxy (`proxy`) and `capture` (a deployment's world as a scenario document).
// Plain JavaScript on purpose: it only picks the bundle to run (dist/, built by scripts/build.ts), so it
// needs no TypeScript loader and no test framework. CommonJS, as the simulator's entry is: `serve` then loads
// no ES module, and Node sets up no ES module loader before its first answer (about 2 ms).
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

// Before any bundle is loaded: on an older Node the bundles fail to link (a SyntaxError about a missing
// export of node:module) long before they could say why.
const MAJOR = Number(process.versions.node.split(".")[0]);
if (MAJOR < 22) {
  process.stderr.write(`audience-research-sim needs Node 22 or newer; this is v${process.versions.node}\n`);
  process.exit(2);
}
const COMMANDS = {
  serve: {
    bundle: "../dist/main.cjs",
    about: "serve the simulator over HTTP (serve --help lists its options)",
  },
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
  const pkg = JSON.parse(readFileSync(join(__dirname, "../package.json"), "utf8"));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
const chosen = COMMANDS[command];
if (!chosen) {
  // The commands differ in their first letters, so the longest shared start (two letters at least) is the one
  // meant: no edit distance (and no dependency) in a file that only picks a bundle.
  const shared = (name) => {
    let n = 0;
    while (n < name.length && name[n] === command[n]) n++;
    return n;
  };
  const near = Object.keys(COMMANDS).sort((a, b) => shared(b) - shared(a))[0];
  const hint = shared(near) >= 2 ? `: did you mean ${near}?` : "";
  process.stderr.write(`audience-research-sim: unknown command ${JSON.stringify(command)}${hint}\n\n${HELP}`);
  process.exit(2);
}
const bundle = join(__dirname, chosen.bundle);
if (!existsSync(bundle)) {
  process.stderr.write(`audience-research-sim: ${bundle} is missing; in a clone, run npm run build\n`);
  process.exit(2);
}
// The command's own argument parser reads process.argv from its third entry on.
process.argv = [process.argv[0], `audience-research-sim ${command}`, ...rest];
if (bundle.endsWith(".cjs")) require(bundle);
else import(pathToFileURL(bundle).href);
