/**
 * The kit and the proxy are handed a contract (src/contract/contract.ts): what a run reads (operations,
 * limits, validators, matching) is the contract it was handed, another version's as much as the kit's own,
 * and two runs of different contracts in one process each read their own. Nothing is swapped in a module.
 */
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { createContract, ownContract } from "../../src/contract/contract.ts";
import { openapi } from "../../src/contract/document.ts";
import { limits, operations, runContract, withContract } from "../lib/description/contract.ts";
import { matchOperation } from "../lib/http/requests.ts";
import { serveProxy } from "../proxy/host.ts";
import { type BrokenServer, brokenServer } from "./harness.ts";

/** The contract without follow and unfollow, and with API key names of at most 50 characters. */
function otherVersion() {
  const doc = structuredClone(openapi) as unknown as {
    paths: Record<string, unknown>;
    components: { schemas: { CreateApiKeyRequest: { properties: { name: Record<string, unknown> } } } };
  };
  delete doc.paths["/audiences/{audienceId}/follow"];
  doc.components.schemas.CreateApiKeyRequest.properties.name["x-max-trimmed-length"] = 50;
  return createContract(doc);
}

const FOLLOW = "/api/v1/audiences/7b0e4b1e-3c55-4a43-9d0e-1f5f7b0a1c11/follow";

describe("a contract handed to the kit", () => {
  it("is what a run reads, and outside a run the kit reads its own", () => {
    const other = otherVersion();
    const inside = withContract(other, () => ({
      ops: operations().length,
      name: limits().apiKeyName,
      follow: matchOperation("POST", FOLLOW).kind,
    }));
    expect(inside).toEqual({ ops: ownContract.operations.length - 2, name: 50, follow: "not-found" });
    expect(runContract()).toBe(ownContract);
    expect([limits().apiKeyName, matchOperation("POST", FOLLOW).kind]).toEqual([
      ownContract.limits.apiKeyName,
      "found",
    ]);
  });

  it("stays each run's own across awaits, with two runs of different contracts at once", async () => {
    const other = otherVersion();
    const read = async () => {
      await new Promise((r) => setTimeout(r, 5));
      return limits().apiKeyName;
    };
    const both = await Promise.all([withContract(other, read), withContract(ownContract, read)]);
    expect(both).toEqual([50, ownContract.limits.apiKeyName]);
  });

  it("refuses what is not an OpenAPI 3.1 document", () => {
    expect(() => createContract({ openapi: "3.0.3", paths: {} })).toThrow(/OpenAPI 3.1/);
    expect(() => createContract(null)).toThrow(/OpenAPI 3.1/);
    expect(createContract(openapi)).toBe(ownContract);
  });
});

describe("a contract handed to the proxy", () => {
  const open: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  it("judges every exchange against it: an operation it lacks is a path the contract does not serve", async () => {
    const upstream: BrokenServer = await brokenServer(null);
    open.push(upstream);
    const judged = async (contract?: ReturnType<typeof otherVersion>) => {
      const proxy = await serveProxy({
        upstream: upstream.info.baseUrl,
        port: 0,
        host: "127.0.0.1",
        ...(contract ? { contract } : {}),
      });
      open.push(proxy);
      const key = upstream.info.keys.owner as string;
      const res = await request(`${proxy.url}${FOLLOW}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
      });
      await res.body.text();
      return proxy.judge.report.violations.map((v) => v.check);
    };
    expect(await judged(otherVersion())).toContain("request/unknown-path");
    expect(await judged()).not.toContain("request/unknown-path");
  });
});
