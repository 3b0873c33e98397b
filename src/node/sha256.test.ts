import { describe, expect, it } from "vitest";
import { sha256Hex } from "../core/auth.ts";
import { createSimulator } from "../simulator.ts";
import { nodeSha256 } from "./sha256.ts";

describe("nodeSha256", () => {
  it("hashes as WebCrypto's does, without a promise", async () => {
    for (const text of ["", "service_abc", "ünïcödé ✓", "x".repeat(1000)]) {
      const hex = nodeSha256(text);
      expect(typeof hex).toBe("string");
      expect(hex).toBe(await sha256Hex(text));
    }
  });

  it("gives a simulator handed it the same world, whose keys work", async () => {
    const withNode = createSimulator({ clock: "manual", sha256: nodeSha256 });
    const withWeb = createSimulator({ clock: "manual" });
    await Promise.all([withNode.ready, withWeb.ready]);
    expect(withNode.snapshotText()).toBe(withWeb.snapshotText());
    const key = withNode.manifest().users.owner?.apiKey;
    const res = await withNode.fetch(
      new Request("http://sim.test/api/v1/auth/me", { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(res.status).toBe(200);
  });
});
