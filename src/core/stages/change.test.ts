import { describe, expect, it } from "vitest";
import { stageWorld } from "../../../testing/stages.ts";
import type { Change } from "../persistence/changes.ts";

/** A world whose changes are recorded into `log`. */
async function recorded() {
  const log: Change[] = [];
  const w = await stageWorld({ changes: { record: (c) => void log.push(c) } });
  return { w, log, main: w.life.world.manifest.audiences.main?.id as string };
}

describe("a change (what the execute stage and a replay make)", () => {
  it("is recorded with the headers it was served with and its body, at the instant it was made", async () => {
    const { w, log, main } = await recorded();
    log.length = 0;
    const body = '{"name":"Panel"}';
    expect((await w.answer(w.call("PUT", `/api/v1/audiences/${main}`, { as: "owner", body }))).status).toBe(
      200,
    );
    expect(log).toEqual([
      expect.objectContaining({ kind: "request", method: "PUT", body, at: w.life.world.clock.now() }),
    ]);
    const headers = (log[0] as { headers: [string, string][] }).headers.map(([k]) => k);
    expect(headers).not.toContain("authorization");
  });

  it("is not recorded when it was refused without moving the world", async () => {
    const { w, log, main } = await recorded();
    log.length = 0;
    // Refused by the handler itself, inside the change: a Formation that does not exist.
    const nobody = "00000000-0000-4000-8000-000000000000";
    const call = w.call("DELETE", `/api/v1/audiences/${main}/formations/${nobody}`, { as: "owner" });
    const refused = await w.answer(call);
    expect(refused.status).toBe(404);
    expect(call.who.pure).toBe(false);
    expect(log).toEqual([]);
  });
});
