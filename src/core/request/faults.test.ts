import { describe, expect, it } from "vitest";
import { createRng } from "../../generators/prng.ts";
import { Journal } from "../control/journal.ts";
import { Faults, globToRegExp } from "./faults.ts";

describe("fault rules", () => {
  it("match by method and glob, and run out after `times`", () => {
    const f = new Faults(createRng(1));
    f.add({ method: "get", path: "/api/v1/audiences/*", status: 503, times: 2 });
    expect(f.take("POST", "/api/v1/audiences/x")).toBeNull();
    expect(f.take("GET", "/api/v1/audiences/x/members")).toBeNull();
    expect(f.take("GET", "/api/v1/audiences/x")?.status).toBe(503);
    expect(f.take("GET", "/api/v1/audiences/y")?.status).toBe(503);
    expect(f.take("GET", "/api/v1/audiences/z")).toBeNull();
  });

  it("fire with the given probability, reproducibly for a seed", () => {
    const count = (seed: number) => {
      const f = new Faults(createRng(seed));
      f.add({ status: 500, probability: 0.25 });
      return Array.from({ length: 2000 }, () => f.take("GET", "/x")).filter(Boolean).length;
    };
    expect(count(4)).toBe(count(4));
    expect(count(4)).toBeGreaterThan(400);
    expect(count(4)).toBeLessThan(600);
  });

  it("turn ** into any depth and * into one segment", () => {
    expect(globToRegExp("/api/**").test("/api/v1/a/b")).toBe(true);
    expect(globToRegExp("/api/*").test("/api/v1/a")).toBe(false);
    expect(globToRegExp("/a.b").test("/aXb")).toBe(false);
  });
});

describe("Journal", () => {
  it("keeps the newest entries, newest first, within its capacity", () => {
    const j = new Journal(3);
    for (let i = 0; i < 5; i++)
      j.add({ at: "", method: "GET", path: `/${i}`, status: 200, ms: 0, userId: null }, "");
    expect(j.find({ limit: 10 }).map((e) => e.path)).toEqual(["/4", "/3", "/2"]);
    expect(j.find({ limit: 1 }).map((e) => e.path)).toEqual(["/4"]);
  });
});
