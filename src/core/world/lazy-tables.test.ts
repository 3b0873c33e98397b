import { describe, expect, it } from "vitest";
import { lazyTables } from "./lazy-tables.ts";

type Tables = { users: Map<string, number>; audiences: Map<string, number>; extra: Map<string, number> };
const NAMES = ["users", "audiences", "extra"];

function counted() {
  const made: string[] = [];
  const tables = lazyTables<Tables>(NAMES, (name) => {
    made.push(name);
    return new Map([[name, made.length]]);
  });
  return { tables, made };
}

describe("lazyTables", () => {
  it("makes a table on its first read only, and keeps it", () => {
    const { tables, made } = counted();
    expect(made).toEqual([]);
    const users = tables.users;
    expect(tables.users).toBe(users);
    expect(made).toEqual(["users"]);
    expect(tables.audiences.get("audiences")).toBe(2);
    expect(made).toEqual(["users", "audiences"]);
  });

  it("reads as a plain object does: its tables in order, all of them made when walked", () => {
    const { tables, made } = counted();
    expect(Object.keys(tables)).toEqual(NAMES);
    expect(made).toEqual([]);
    expect(Object.entries(tables).map(([name, table]) => [name, [...table]])).toEqual([
      ["users", [["users", 1]]],
      ["audiences", [["audiences", 2]]],
      ["extra", [["extra", 3]]],
    ]);
    expect(structuredClone(tables)).toEqual({
      users: new Map([["users", 1]]),
      audiences: new Map([["audiences", 2]]),
      extra: new Map([["extra", 3]]),
    });
    expect(JSON.stringify(Object.getOwnPropertySymbols(tables).map(String))).toBe('["Symbol(tables)"]');
  });

  it("takes a table set in place of one never made, and never makes that one", () => {
    const { tables, made } = counted();
    const own = new Map([["mine", 9]]);
    tables.audiences = own;
    expect(tables.audiences).toBe(own);
    expect(made).toEqual([]);
  });

  it("keeps each object's tables its own, whatever the order they are read in", () => {
    const a = counted();
    const b = counted();
    expect(b.tables.extra.get("extra")).toBe(1);
    expect(a.tables.users.get("users")).toBe(1);
    expect(a.tables.extra.get("extra")).toBe(2);
    expect(b.tables.users).not.toBe(a.tables.users);
  });
});
