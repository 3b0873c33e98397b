// What `npm start` and `audience-research-sim serve` run: dist/main.cjs, written by scripts/build.ts from this
// file. It runs the simulator's bundle (dist/cli.cjs) with V8's code for it, saved by an earlier start.
//
// Why not Node's compile cache alone: it keeps the code V8 makes when it compiles a module, before the module
// runs, and V8 compiles a function only when it is first called. So every function start-up calls (the world's
// build, the server's, the first request's) was compiled again at every start. Here the code is taken from the
// script once start-up has run (`createCachedData`), functions included, which made the first answer about
// 11 ms sooner. Node can do that for a script, not for an ES module, hence a CommonJS bundle.
//
// CommonJS itself, as the bin is: a start that loads no ES module sets up no ES module loader (about 2 ms).
//
// The first start without a cache (or with one this Node refuses) offers `saveCodeCache` (src/cli/code-cache.ts
// calls it); a cache that cannot be written is no error, only a slower next start.
"use strict";
const { createRequire, enableCompileCache, flushCompileCache } = require("node:module");
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const { constants, Script } = require("node:vm");

/**
 * The bundle, written by the build as the function a CommonJS module's code is wrapped in (strict, as the ES
 * modules it was bundled from) and in ASCII only: read as latin1, Node hands V8 its bytes as they are, outside
 * the heap, where UTF-8 would decode a copy into it and the wrapping would copy it again (some 4 MB of young
 * objects, and a collection, before the first line runs).
 */
const BUNDLE = `${__dirname}/cli.cjs`;
/** The bundle's content hash, written in by the build: a rebuilt bundle never meets the code of another. */
const BUNDLE_ID = "__BUNDLE_ID__";
const CACHE_DIR = `${__dirname}/.compile-cache/`;

/** FNV-1a, hex: a short, stable name for what V8 checks a cache against besides the source. */
function fingerprint(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

// V8 refuses code made by another version or under other flags: one file per Node and set of flags, so that
// `npm start` (with its flags) and the command (without) do not overwrite each other's.
const runtime = `${process.version} ${process.arch} ${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
const PREFIX = `cli-${BUNDLE_ID}-`;
const CACHE = `${CACHE_DIR}${PREFIX}${fingerprint(runtime)}.v8`;

let cachedData;
try {
  cachedData = readFileSync(CACHE);
} catch {}

// Packages loaded later (documents, Prism) are ES modules of node_modules: Node's own cache serves them.
enableCompileCache(CACHE_DIR);
setTimeout(flushCompileCache, 2000).unref();

const script = new Script(readFileSync(BUNDLE, "latin1"), {
  filename: BUNDLE,
  cachedData,
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});

if (cachedData === undefined || script.cachedDataRejected) {
  // Each call writes what V8 has compiled so far (src/cli/code-cache.ts decides when).
  globalThis[Symbol.for("audience-research-sim.saveCodeCache")] = () => {
    try {
      mkdirSync(CACHE_DIR, { recursive: true });
      const temporary = `${CACHE}.${process.pid}.tmp`;
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, CACHE);
      // The code of bundles built before this one is of no more use.
      for (const name of readdirSync(CACHE_DIR))
        if (name.startsWith("cli-") && !name.startsWith(PREFIX))
          rmSync(`${CACHE_DIR}${name}`, { force: true });
    } catch {}
  };
}

const bundleModule = { exports: {} };
script.runInThisContext()(bundleModule.exports, createRequire(BUNDLE), bundleModule, BUNDLE, __dirname);
