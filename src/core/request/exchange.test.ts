import { describe, expect, it } from "vitest";
import { Answer, promised, type SimRequest } from "./exchange.ts";

const request = new Request("http://localhost/x") as SimRequest;

describe("promised", () => {
  it("gives an answer, an answer's promise and a throw each as a promise", async () => {
    const answer = new Answer(200, {}, "ok");
    const now = promised(() => answer, request);
    expect(now).toBeInstanceOf(Promise);
    expect(await now).toBe(answer);
    const later = Promise.resolve(answer);
    expect(promised(() => later, request)).toBe(later);
    const failure = new Error("broke");
    const thrown = promised(() => {
      throw failure;
    }, request);
    await expect(thrown).rejects.toBe(failure);
  });
});
