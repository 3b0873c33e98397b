/**
 * Every recipe of examples/ loads through the control plane (an inline reset), a sandbox and MSW, and holds
 * what it promises, read back through the public API. (The command line: src/cli/scenario-file.test.ts.)
 */
import { readdirSync } from "node:fs";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES, RECIPES, type RecipeWorld } from "../../../testing/recipes.ts";
import type { Manifest } from "../../core/world/manifest.ts";
import { createHandlers } from "../../msw/index.ts";
import { createSandboxes } from "../../simulator.ts";

const ORIGIN = "http://sim.test";

async function send(
  fetcher: (r: Request) => Promise<Response>,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetcher(new Request(`${ORIGIN}${path}`, init));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A world of the host's, reached with `fetcher`, whose control plane is at `control`. */
function world(
  fetcher: (r: Request) => Promise<Response>,
  manifest: Manifest,
  control: string,
  token?: string,
): RecipeWorld {
  const controlHeaders: Record<string, string> = token ? { "x-sim-control-token": token } : {};
  return {
    manifest,
    call: (method, path, as, body) =>
      send(fetcher, method, path, { authorization: `Bearer ${manifest.users[as]?.apiKey}` }, body),
    advance: async (ms) => {
      expect((await send(fetcher, "POST", `${control}/clock/advance`, controlHeaders, { ms })).status).toBe(
        200,
      );
    },
  };
}

it("has a check for every example file", () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith(".json"));
  expect(RECIPES.map((r) => r.file).sort()).toEqual(files.sort());
});

describe.each(RECIPES)("recipe $file", (recipe) => {
  it("loads through POST /__sim/reset and holds what it promises", async () => {
    const host = createSandboxes({ clock: "manual" });
    const reset = await send(host.fetch, "POST", "/__sim/reset", {}, { scenario: recipe.document });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    await recipe.check(world(host.fetch, reset.body, "/__sim"));
  });

  it("loads as a sandbox and holds what it promises", async () => {
    const host = createSandboxes({ clock: "manual" });
    const made = await send(host.fetch, "POST", "/__sim/sandboxes", {}, { scenario: recipe.document });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { id, controlToken, manifest } = made.body;
    await recipe.check(world(host.fetch, manifest, `/__sim/sandboxes/${id}`, controlToken));
  });

  describe("through MSW", () => {
    const handlers = createHandlers({ scenario: recipe.document, clock: "manual" });
    const server = setupServer(...handlers);
    beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
    afterAll(() => server.close());

    it("loads with createHandlers({ scenario }) and holds what it promises", async () => {
      await handlers.simulator.ready;
      await recipe.check(world((r) => fetch(r), handlers.simulator.manifest(), "/__sim"));
    });
  });
});
