/**
 * A scenario document may state the IDs of its Audiences, Minds and Formations (what a recording does, so
 * that the URLs a frontend saved still name the same records offline); stated IDs are held to the format
 * like every other field, and stating one leaves every generated ID as it was.
 */
import { describe, expect, it } from "vitest";
import { harness } from "../../../testing/harness.ts";
import { BUYING_ROLES as HYPOTHESIS, problemsOf } from "../../../testing/scenario-problems.ts";
import type { ScenarioDocument } from "./load.ts";

const A = "3f6c1a52-8a0e-4c1b-9d7e-2b5a4c3d1e0f";
const M = "7d2e9b14-5c3a-4f8e-a1b6-0c9d8e7f6a5b";
const F = "c4b3a291-0e1f-4a2b-8c3d-5e6f7a8b9c0d";

function world(ids: { audience?: string; mind?: string; formation?: string }): ScenarioDocument {
  return {
    name: "stated",
    seed: 3,
    users: { dev: { plan: "premium" } },
    minds: { star: { owner: "dev", ...(ids.mind ? { id: ids.mind } : {}) } },
    audiences: {
      a: {
        owner: "dev",
        topic: "Hospital procurement leads",
        members: ["star", { generate: 9 }],
        ...(ids.audience ? { id: ids.audience } : {}),
      },
      b: { owner: "dev", topic: "Fleet managers", members: [{ generate: 3 }] },
    },
    formations: {
      f: {
        audience: "a",
        name: "Roles",
        hypothesis: HYPOTHESIS,
        ...(ids.formation ? { id: ids.formation } : {}),
      },
    },
  };
}

describe("IDs a scenario document states", () => {
  it("are the records' IDs: the manifest lists them and the API serves the records under them", async () => {
    const h = await harness({ scenario: world({ audience: A, mind: M, formation: F }) });
    const m = h.sim.manifest();
    expect([m.audiences.a?.id, m.minds.star?.id, m.formations.f?.id]).toEqual([A, M, F]);
    const audience = await h.call("GET", `/api/v1/audiences/${A}`, { as: "dev" });
    expect(audience.status).toBe(200);
    expect(audience.body.data.minds[0].id).toBe(M);
    expect((await h.call("GET", `/api/v1/audiences/${A}/formations/${F}`, { as: "dev" })).status).toBe(200);
  });

  it("leave every other generated ID as it was", async () => {
    const plain = (await harness({ scenario: world({}) })).sim.manifest();
    const stated = (
      await harness({ scenario: world({ audience: A, mind: M, formation: F }) })
    ).sim.manifest();
    expect(stated.audiences.b?.id).toBe(plain.audiences.b?.id);
    expect(stated.users.dev?.id).toBe(plain.users.dev?.id);
  });

  it("are refused, with their pointers, when malformed, taken by another record, or not the extended record's", () => {
    expect(problemsOf(world({ audience: "not-a-uuid" }))).toEqual([
      expect.objectContaining({ path: "/audiences/a/id" }),
    ]);
    const twice = world({ audience: A });
    (twice.audiences as Record<string, { id?: string }>).b = { ...twice.audiences?.b, id: A };
    expect(problemsOf(twice)).toEqual([
      { path: "/audiences/b/id", message: "is already the ID of another record of /audiences" },
    ]);
    const moved = { name: "moved", extends: "default", audiences: { main: { id: A } } };
    expect(problemsOf(moved)).toEqual([expect.objectContaining({ path: "/audiences/main/id" })]);
  });
});
