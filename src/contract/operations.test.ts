// The document is a valid OpenAPI 3.1 description and holds exactly the operations that
// api-description.md describes, at their full paths (server prefix + path), each with a unique operationId.
import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPI } from "openapi-types";
import { describe, expect, it } from "vitest";
import { entriesOf, HTTP_METHODS, isObject, type Json, loadOpenApi } from "./load.ts";
import { operations as served } from "./operations.ts";

/** Every described operation, written out from api-description.md (the `/v1` twins are checked separately). */
const DESCRIBED_OPERATIONS = [
  // Identity and API keys
  "GET /api/v1/auth/me",
  "GET /api/v1/api-keys",
  "POST /api/v1/api-keys",
  "DELETE /api/v1/api-keys/{keyId}",
  // Audiences: read, update, delete
  "GET /api/v1/audiences/{audienceId}",
  "PUT /api/v1/audiences/{audienceId}",
  "DELETE /api/v1/audiences/{audienceId}",
  // Audiences: duplicate, follow
  "POST /api/v1/audiences/{audienceId}/duplicate",
  "POST /api/v1/audiences/{audienceId}/follow",
  "DELETE /api/v1/audiences/{audienceId}/follow",
  // Audiences: collaborators
  "GET /api/v1/audiences/{audienceId}/collaborators",
  "DELETE /api/v1/audiences/{audienceId}/collaborators/{userId}",
  // Audiences: members
  "POST /api/v1/audiences/{audienceId}/members",
  "DELETE /api/v1/audiences/{audienceId}/members/{mindId}",
  // Audiences: filter attributes
  "GET /api/v1/audiences/{audienceId}/filter-attributes",
  // Audiences: Formations
  "GET /api/v1/audiences/{audienceId}/formations",
  "POST /api/v1/audiences/{audienceId}/formations",
  "GET /api/v1/audiences/{audienceId}/formations/{formationId}",
  "DELETE /api/v1/audiences/{audienceId}/formations/{formationId}",
  "POST /api/v1/audiences/{audienceId}/formations/{formationId}/recompute",
  "POST /api/v1/audiences/{audienceId}/formations/preview",
  // Audiences: progress, recalibrate
  "GET /api/v1/audiences/{audienceId}/progress",
  "POST /api/v1/audiences/{audienceId}/recalibrate",
  // Named by the description's Events section: state is read by polling the operation `statusUrl`.
  "GET /api/v1/audiences/{audienceId}/recalibrate/operations/{operationId}",
  // Audiences: exports
  "POST /api/v1/audiences/{audienceId}/export",
  "GET /api/v1/audiences/{audienceId}/export-status",
  "GET /api/v1/audiences/{audienceId}/export-download",
  // Hosted checkout (ACP)
  "POST /api/acp/checkout_sessions",
  "GET /api/acp/checkout_sessions/{id}",
  "POST /api/acp/checkout_sessions/{id}",
  "POST /api/acp/checkout_sessions/{id}/cancel",
  "POST /api/acp/checkout_sessions/{id}/complete",
  // Versioning: the machine-readable description
  "GET /_openapi.json",
] as const;

const V1 = "/api/v1";
const API_HOST_V1 = "/v1";

interface Operation {
  method: string;
  path: string;
  operationId: Json | undefined;
  /** Path prefixes of the servers that apply to the operation (operation, path item or top level). */
  prefixes: string[];
}

function serverPrefixes(servers: Json | undefined): string[] | undefined {
  if (!Array.isArray(servers)) return undefined;
  return servers.map((server) => {
    const url = isObject(server) && typeof server.url === "string" ? server.url : "";
    // Server URLs here are relative; an absolute one contributes only its path.
    return new URL(url, "http://server.invalid").pathname.replace(/\/+$/, "");
  });
}

function operationsOf(doc: Json): Operation[] {
  const root = isObject(doc) ? doc : {};
  const topLevel = serverPrefixes(root.servers) ?? [""];
  const operations: Operation[] = [];
  for (const [path, item] of entriesOf(root.paths)) {
    if (!isObject(item)) continue;
    const pathLevel = serverPrefixes(item.servers) ?? topLevel;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        prefixes: serverPrefixes(op.servers) ?? pathLevel,
      });
    }
  }
  return operations;
}

const doc = loadOpenApi();
const operations = operationsOf(doc);
const fullPaths = operations.flatMap((op) => op.prefixes.map((prefix) => `${op.method} ${prefix}${op.path}`));

describe("openapi.json", () => {
  it("is a valid OpenAPI 3.1.0 document (@apidevtools/swagger-parser)", async () => {
    expect(doc.openapi).toBe("3.1.0");
    // validate() dereferences its input in place, so it gets its own copy.
    await expect(SwaggerParser.validate(loadOpenApi() as unknown as OpenAPI.Document)).resolves.toBeDefined();
  });

  it("describes every operation of the description", () => {
    const missing = DESCRIBED_OPERATIONS.filter((op) => !fullPaths.includes(op));
    expect(missing, "operations described in api-description.md but missing from openapi.json").toEqual([]);
  });

  it("describes no operation beyond the description", () => {
    const described = new Set<string>(DESCRIBED_OPERATIONS);
    const extra = fullPaths.filter(
      (op) => !described.has(op) && !described.has(op.replace(` ${API_HOST_V1}/`, ` ${V1}/`)),
    );
    expect(extra, "operations in openapi.json that api-description.md does not describe").toEqual([]);
  });

  it("serves every /api/v1 operation under /v1 too, and nothing else under more than one prefix", () => {
    const wrong = operations
      .filter((op) =>
        op.prefixes.includes(V1)
          ? op.prefixes.length !== 2 || !op.prefixes.includes(API_HOST_V1)
          : op.prefixes.length !== 1,
      )
      .map((op) => `${op.method} ${op.path}: servers ${JSON.stringify(op.prefixes)}`);
    expect(
      wrong,
      `operations whose servers are not exactly ["${V1}", "${API_HOST_V1}"] or a single one`,
    ).toEqual([]);
  });

  it("gives every operation a unique operationId", () => {
    const withoutId = operations.filter((op) => typeof op.operationId !== "string" || op.operationId === "");
    expect(
      withoutId.map((op) => `${op.method} ${op.path}`),
      "operations without operationId",
    ).toEqual([]);
    const seen = new Map<string, string>();
    const duplicates: string[] = [];
    for (const op of operations) {
      if (typeof op.operationId !== "string") continue;
      const first = seen.get(op.operationId);
      if (first === undefined) seen.set(op.operationId, `${op.method} ${op.path}`);
      else duplicates.push(`${op.operationId}: ${first} and ${op.method} ${op.path}`);
    }
    expect(duplicates, "operationIds used more than once").toEqual([]);
  });

  it("lets an operation's own parameter replace the path's of the same name (unfollow takes any ID)", () => {
    const unfollow = served.find((o) => o.operationId === "unfollowAudience");
    const follow = served.find((o) => o.operationId === "followAudience");
    const ids = (o: typeof unfollow) => o?.parameters.filter((p) => p.name === "audienceId") ?? [];
    expect(ids(unfollow)).toHaveLength(1);
    expect(ids(unfollow)[0]?.schema).toEqual({ type: "string" });
    expect(ids(follow)[0]?.schema).not.toEqual({ type: "string" });
  });
});
