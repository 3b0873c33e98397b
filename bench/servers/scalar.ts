/**
 * Scalar's mock server (`@scalar/mock-server`) on the project's contract. The package builds a Hono app and
 * leaves the HTTP host to the caller (its README uses `@hono/node-server`, which is not installed here), so
 * the app is served through the simulator's own node:http host (`src/node/server.ts`): both then pay the
 * same HTTP plumbing and the comparison is between what each does per request. Scalar registers the
 * contract's paths without a server prefix (`/auth/me`, not `/api/v1/auth/me`). Usage: scalar.ts PORT
 */
import { readFileSync } from "node:fs";
import { createMockServer } from "@scalar/mock-server";
import { startServer } from "../../src/node/server.ts";

const port = Number(process.argv[2] ?? "0");
const specification = JSON.parse(readFileSync(new URL("../../openapi.json", import.meta.url), "utf8"));
// Scalar prints authentication hints at start; the benchmark reads none of it.
const log = console.log;
console.log = () => {};
const app = await createMockServer({ specification });
console.log = log;
await startServer(
  { fetch: async (request) => app.fetch(request) },
  { port, host: "127.0.0.1", onError: () => {} },
);
