import { describe, expect, it } from "vitest";
import { Answer } from "../request/exchange.ts";
import { type Done, grown, rescued, type Stage, way, whenDone } from "./compose.ts";

type Start = { log: string[] };
const ok = new Answer(200, {}, null);

/** A stage that logs before and after the rest of the way, and adds `part`. */
const logs = <P extends object>(name: string, part: P): Stage<Start, P> => ({
  name,
  run: (call, next) => {
    call.log.push(`${name} in`);
    return whenDone(next(grown(call, part)), (a) => {
      call.log.push(`${name} out`);
      return a;
    });
  },
});

describe("a way of stages", () => {
  it("runs its stages in order, each around the rest (an onion), and ends in the last", async () => {
    const w = way<Start>()
      .through(logs("a", { a: 1 }))
      .through(logs("b", { b: 2 }));
    expect(w.names).toEqual(["a", "b"]);
    let seen: unknown;
    const run = w.end((call) => {
      seen = { a: call.a, b: call.b };
      call.log.push("end");
      return ok;
    });
    const call = { log: [] as string[] };
    expect(run(call)).toBe(ok);
    expect(call.log).toEqual(["a in", "b in", "end", "b out", "a out"]);
    expect(seen).toEqual({ a: 1, b: 2 });
  });

  it("answers at once when no stage waits, and waits only for one that does", async () => {
    const waits: Stage<Start> = {
      name: "waits",
      run: (call, next) => Promise.resolve().then(() => next(call)),
    };
    const end = () => ok;
    expect(way<Start>().end(end)({ log: [] })).toBe(ok);
    const later = way<Start>().through(waits).end(end)({ log: [] });
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(ok);
  });

  it("lets a stage answer instead of the rest", () => {
    const stops: Stage<Start> = { name: "stops", run: () => new Answer(404, {}, null) };
    const run = way<Start>()
      .through(stops)
      .end(() => expect.fail("the rest is not run"));
    expect((run({ log: [] }) as Answer).status).toBe(404);
  });

  it("does not compile a stage placed before what it needs", () => {
    const needsB: Stage<Start & { b: number }> = { name: "needs b", run: (call, next) => next(call) };
    // @ts-expect-error: nothing before it adds `b`.
    way<Start>().through(needsB);
    way<Start>()
      .through(logs("b", { b: 2 }))
      .through(needsB);
  });

  it("rescues what is thrown now or later, and leaves an answer alone", async () => {
    const rescue = (e: unknown): Done => new Answer(Number((e as Error).message), {}, null);
    const thrown = rescued(() => {
      throw new Error("500");
    }, rescue);
    expect((thrown as Answer).status).toBe(500);
    expect(((await rescued(() => Promise.reject(new Error("503")), rescue)) as Answer).status).toBe(503);
    expect(rescued(() => ok, rescue)).toBe(ok);
  });
});
