import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "conformance/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Node 24 runs the sources as they are (erasable TypeScript only): no transform, and modules load faster.
    experimental: { viteModuleRunner: false },
    projects: [
      // Everything above except the conformance suite, which needs its own setup.
      {
        extends: true,
        test: {
          name: "unit",
          exclude: [...configDefaults.exclude, "conformance/**"],
          globalSetup: ["scripts/build-before-tests.ts"],
        },
      },
      // The black-box suite against one target (an in-process simulator unless CONFORMANCE_TARGET is set);
      // its files share that target's state, so they run one at a time. Not `extends`: the root include
      // list would be merged into this one.
      {
        test: {
          name: "conformance",
          include: ["conformance/*.test.ts"],
          globalSetup: ["conformance/setup/global.ts"],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      // The kit's own tests: its checks against deliberately broken in-process servers.
      {
        test: {
          name: "conformance-selftest",
          include: ["conformance/selftest/**/*.test.ts"],
          // The deployment harness mostly waits in real time (polls, backoff): more cases at once.
          maxConcurrency: 12,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
