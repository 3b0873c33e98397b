/**
 * Global setup of `npm test`'s unit project: the bundles in dist/ are built once, before any test file
 * runs, so that the tests that spawn them (the program, the bundle, the packed package) never race to build
 * the same files at once.
 */
import { buildIfStale } from "./build.ts";

export default async function setup(): Promise<void> {
  await buildIfStale();
}
