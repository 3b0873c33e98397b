import { configDefaults, defineConfig } from "vitest/config";

// `npm run test:unit`: the tests beside the code, for the inner loop. Left to `npm test`: the robustness
// suite (time-boxed fuzzing, load, SIGKILL loops), the CLI and bundle tests that spawn processes or build,
// the browser tests (MSW in a tab, the dashboard), and the conformance kit (also as run through the MSW and
// Node hosts).
export default defineConfig({
  test: {
    name: "unit",
    include: ["src/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      "src/robustness/**",
      // The command line's own tests spawn it or build it; its file stores (src/cli/stores/) stay in the loop.
      "src/cli/*.test.ts",
      // Exported files opened by other programs (pdftotext, qpdf, python's readers), a process each.
      "src/resources/exports/exports.readers.test.ts",
      // What V8 does to Node's tick queue, shown in processes of their own (src/node/tick-shape.ts).
      "src/node/tick-shape.v8.test.ts",
      "src/msw/browser.test.ts",
      "src/**/*.browser.test.ts",
      "src/core/control/dashboard/dashboard.test.ts",
      "src/msw/bundle.test.ts",
      // The generated files' freshness: each runs its generator's command line (types, records, scenario format).
      "src/contract/types.test.ts",
      "src/contract/scenario-document.test.ts",
      "src/resources/records.test.ts",
      // The conformance kit run through both hosts: an integration test, in `npm test`.
      "src/msw/conformance.test.ts",
    ],
    testTimeout: 30_000,
    // Both cores: vitest leaves one free by default, which on a 2-core machine halves the loop.
    maxWorkers: 2,
    // Threads, not processes: a worker starts and shares modules faster, and no unit test needs a process of its own.
    pool: "threads",
    isolate: false,
    experimental: { viteModuleRunner: false },
  },
});
