/**
 * The sentence index holds every sentence of openapi.json, and only those; each judged sentence names
 * faults the self-test has, reported by a check of the sentence's rules (faults.test.ts and
 * deployment.test.ts show each one caught, in the simulator and against a deployment).
 */
import { describe, expect, it } from "vitest";
import { ownContract } from "../../src/contract/contract.ts";
import { type Answer, answersOf, type CaseWorld } from "../cases/case.ts";
import { ALL_CASES } from "../cases/index.ts";
import { casesOf } from "../index/cases.ts";
import { INDEX_PARTS, indexSentences, SENTENCE_INDEX } from "../index/index.ts";
import { FAULTS } from "./faults.ts";
import { SIMULATOR_ONLY } from "./simulator-only.ts";

const sentences = indexSentences(ownContract.document);

/**
 * Every message some case states word for word, with the rules of the cases that state it: each case's
 * answers read in a stand-in world (its handles and what its precondition made are placeholders).
 */
function statedMessages(): Map<string, Set<string>> {
  const anything = new Proxy({}, { get: () => "placeholder" }) as Record<string, never>;
  const w = {
    info: {
      audiences: anything,
      minds: anything,
      users: anything,
      keys: anything,
      plans: {},
      prices: anything,
      formations: anything,
      extraPrefixes: ["/v1"],
    },
    made: anything,
    aud: () => "a",
    mind: () => "m",
    formation: () => "f",
    user: () => "u",
    price: () => ({ id: "price_x", kind: "credits", currency: "usd", unitAmount: 1, name: "x" }),
  } as unknown as CaseWorld;
  const out = new Map<string, Set<string>>();
  for (const c of ALL_CASES) {
    let answers: readonly Answer[] = [];
    try {
      answers = answersOf(c, w);
    } catch {
      continue;
    }
    for (const a of answers)
      for (const m of [
        ...(typeof a.message === "string" ? [a.message] : (a.message ?? [])),
        ...(a.code ? [a.code] : []),
      ])
        out.set(m, new Set([...(out.get(m) ?? []), c.rule]));
  }
  return out;
}

const STATED = statedMessages();

/** A judged sentence without hand-written faults must be a message some case of its rules states word for word. */
function statedMessage(text: string, e: { rules: readonly string[] }): boolean {
  return [...(STATED.get(text) ?? [])].some((r) => e.rules.includes(r));
}

describe("the sentence index", () => {
  it("has an entry for every sentence of openapi.json", () => {
    const missing = sentences.filter((s) => s.entry === undefined).map((s) => `${s.pointer}: ${s.text}`);
    expect(missing).toEqual([]);
  });

  it("has no entry for a sentence openapi.json does not state", () => {
    const stated = new Set(sentences.map((s) => s.text));
    expect([...SENTENCE_INDEX.keys()].filter((t) => !stated.has(t))).toEqual([]);
  });

  it("holds each sentence in one part only", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [part, entries] of Object.entries(INDEX_PARTS))
      for (const text of Object.keys(entries)) {
        if (seen.has(text)) twice.push(`${text} (${seen.get(text)}, ${part})`);
        seen.set(text, part);
      }
    expect(twice).toEqual([]);
  });

  it("names for every judged sentence faults the self-test has, reported by a check of its rules", () => {
    const byName = new Map(FAULTS.map((f) => [f.name, f]));
    const wrong: string[] = [];
    for (const [text, e] of SENTENCE_INDEX) {
      if (e.code !== "judged") continue;
      // A stated message is broken by the faults made from its cases (case-faults.test.ts).
      if (e.faults.length === 0 && !statedMessage(text, e)) wrong.push(`${text}: no fault`);
      for (const name of e.faults) {
        const f = byName.get(name);
        if (!f) {
          wrong.push(`${text}: no fault "${name}"`);
          continue;
        }
        const reporter = f.checks.find((c) => f.reportedBy.startsWith(c.name)) ?? f.checks[0];
        // Every exchange is held to the contract's response rules, whichever check made it.
        const rules = new Set<string>([
          ...(reporter?.rules ?? []),
          ...(f.reportedBy.startsWith("response/") ? ["contract/responses"] : []),
        ]);
        if (!e.rules.some((r) => rules.has(r)))
          wrong.push(`${text}: "${name}" is reported by ${f.reportedBy} (${[...rules].join(", ")})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("claims a deployment only where one of its faults is caught against a deployment", () => {
    const simulatorOnly = [...SENTENCE_INDEX].filter(
      ([, e]) =>
        e.code === "judged" &&
        !e.simulatorOnly &&
        e.faults.length > 0 &&
        e.faults.every((f) => SIMULATOR_ONLY[f]),
    );
    expect(simulatorOnly.map(([t]) => t)).toEqual([]);
  });

  it("has cases for every judged sentence, on the operations where it stands", () => {
    const pointers = new Map<string, string[]>();
    for (const s of sentences) pointers.set(s.text, [...(pointers.get(s.text) ?? []), s.pointer]);
    const without = [...SENTENCE_INDEX].filter(
      ([text, e]) => e.code === "judged" && casesOf(e, pointers.get(text) ?? []).length === 0,
    );
    expect(without.map(([t]) => t)).toEqual([]);
  });

  it("gives a reason in words wherever the reason is not plain from its code", () => {
    const bare = [...SENTENCE_INDEX].filter(([, e]) => "why" in e && e.why.trim().length < 10);
    expect(bare.map(([t]) => t)).toEqual([]);
  });
});
