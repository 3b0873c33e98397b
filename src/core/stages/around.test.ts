import { describe, expect, it } from "vitest";
import { bodyOf, call, PASSED } from "../../../testing/stages.ts";
import type { JournalEntry } from "../control/journal.ts";
import { ApiError } from "../errors.ts";
import { Answer, type Outcome } from "../request/exchange.ts";
import { crash, dueJobs, envelope, forget, head, journaled, ready } from "./around.ts";
import { arrived } from "./call.ts";

describe("the stages around every request", () => {
  it("ready: waits while the world is being built, again while a setup runs, then passes on", async () => {
    let waits = [Promise.resolve(), Promise.resolve()];
    const stage = ready(() => waits.shift() ?? null);
    expect(await stage.run(call("GET", "/"), () => PASSED)).toBe(PASSED);
    expect(waits).toEqual([]);
    waits = [];
    expect(stage.run(call("GET", "/"), () => PASSED)).toBe(PASSED);
  });

  it("head: a HEAD answer keeps its status and headers and loses its body; a GET keeps it", async () => {
    const full = new Answer(200, { "x-a": "1" }, "body");
    const stripped = (await head.run(call("HEAD", "/"), () => full)) as Answer;
    expect([stripped.status, stripped.headers["x-a"], stripped.body]).toEqual([200, "1", null]);
    expect(head.run(call("GET", "/"), () => full)).toBe(full);
  });

  it("journal: every answer with its caller, how long it took, and what it sent and got", async () => {
    const added: [JournalEntry, string, string | null, Outcome][] = [];
    const told: JournalEntry[] = [];
    let t = 10;
    const stage = journaled({
      journal: {
        add: (e, query, _h, body, answer) => void added.push([e, query, body ?? null, answer as Outcome]),
      },
      nowIso: () => "2026-01-01T00:00:00.000Z",
      wall: () => (t += 2.5),
      senderOf: (h) => (h === "Bearer k" ? "u-sender" : null),
      onRequest: (e) => void told.push(e),
    });
    const answer = new Answer(503, {}, null);
    const c = call("POST", "/api/v1/audiences?x=1", { authorization: "Bearer k", body: "{}" });
    c.who.body = "{}";
    expect(await stage.run(c, () => answer)).toBe(answer);
    const entry = {
      at: "2026-01-01T00:00:00.000Z",
      method: "POST",
      path: "/api/v1/audiences",
      status: 503,
      ms: 2.5,
      userId: "u-sender",
    };
    expect(added).toEqual([[entry, "?x=1", "{}", answer]]);
    expect(told).toEqual([entry]);
    // The caller authentication found wins over the key sent; a control-plane read is told, not kept.
    const known = call("GET", "/api/v1/auth/me", { authorization: "Bearer k" });
    known.who.userId = "u-found";
    await stage.run(known, () => PASSED);
    expect(added.at(-1)?.[0].userId).toBe("u-found");
    await stage.run(call("GET", "/__sim/manifest"), () => PASSED);
    expect([added.length, told.length]).toEqual([2, 3]);
  });

  it("forget: after an answer that may have moved the world, not after a pure read or a change of keys only", async () => {
    let touched = 0;
    const stage = forget(() => touched++);
    await stage.run(call("POST", "/"), () => PASSED);
    const pure = call("GET", "/");
    pure.who.pure = true;
    await stage.run(pure, () => PASSED);
    const keys = call("POST", "/");
    keys.who.keysOnly = true;
    await stage.run(keys, () => PASSED);
    expect(touched).toBe(1);
  });

  it("crash: a bug is told and answered 500 in the envelope; a client gone is 499", async () => {
    const told: unknown[] = [];
    const stage = crash((error, where) => void told.push([String(error), where]));
    const bug = await stage.run(call("GET", "/api/v1/x"), () => Promise.reject(new Error("boom")));
    expect(bodyOf(bug)).toMatchObject({ statusCode: 500, url: "/api/v1/x" });
    expect(told).toEqual([["Error: boom", { method: "GET", path: "/api/v1/x" }]]);
    const sent = call("POST", "/api/v1/x");
    const gone = arrived({ ...sent.request, signal: AbortSignal.abort() }, sent.url);
    expect((await stage.run(gone, () => Promise.reject(new Error("read failed")))).status).toBe(499);
  });

  it("due-jobs: runs the clock's due jobs before the request sees the world", async () => {
    const order: string[] = [];
    const stage = dueJobs(() => order.push("due"));
    stage.run(call("GET", "/"), () => {
      order.push("request");
      return PASSED;
    });
    expect(order).toEqual(["due", "request"]);
  });

  it("envelope: a refusal is the envelope with the headers gathered so far; a bug goes on up", async () => {
    const c = call("GET", "/api/v1/x");
    c.headers["ratelimit-limit"] = "300";
    const refused = (await envelope.run(c, () => {
      throw new ApiError(403, "Forbidden");
    })) as Answer;
    expect([refused.status, refused.headers["ratelimit-limit"]]).toEqual([403, "300"]);
    expect(bodyOf(refused)).toMatchObject({ statusCode: 403, statusMessage: "Forbidden", url: "/api/v1/x" });
    expect(() =>
      envelope.run(c, () => {
        throw new TypeError("bug");
      }),
    ).toThrow(TypeError);
  });
});
