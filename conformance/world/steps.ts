/**
 * The steps a world sequence is made of: plain JSON, so that a failing sequence can be saved, printed and
 * replayed against any target (`--replay FILE`). Indices (`key`, `f`, `s`, `mind`) are taken modulo what
 * the model holds when the step runs, so every step means something in every state.
 */
import fc from "fast-check";
import type { Role } from "../lib/http/target.ts";

/** A flag as PUT sends it: a boolean, or the opposite value as a string (which must change nothing). */
export type Flag = boolean | "string";

export type Step =
  | { k: "createKey"; as: Role; prefix: number }
  | { k: "useKey"; key: number }
  | { k: "deleteKey"; as: Role; key: number; prefix: number }
  | { k: "listKeys"; as: Role }
  | { k: "put"; as: Role; isPublic?: Flag; isSharedWithTeam?: Flag; prefix: number; rename?: boolean }
  | { k: "view"; as: Role; prefix: number; preview: boolean }
  | { k: "follow"; as: Role; undo: boolean }
  | { k: "deleteAudience"; as: Role }
  | { k: "addMembers"; as: Role; minds: number[]; repeat: boolean }
  | { k: "removeMember"; as: Role; mind: number }
  | { k: "createFormation"; as: Role; subgroups: number }
  | { k: "formation"; as: Role; f: number; op: "get" | "delete" | "recompute" }
  | { k: "listFormations"; as: Role; limit: number }
  | { k: "preview"; as: Role }
  | { k: "settle" }
  | { k: "createSession"; as: Role }
  | { k: "session"; as: Role; s: number; op: "get" | "refresh" | "cancel" | "complete" }
  | { k: "replaySession"; s: number; sameBody: boolean }
  | { k: "listCollaborators"; as: Role }
  | { k: "duplicate"; as: Role }
  | { k: "exportReport"; as: Role }
  | { k: "removeCollaborator"; as: Role; who: Role };

export type StepKind = Step["k"];

/** Who is on stage: the roles the target has keys for, grouped by what the steps need them for. */
export interface Cast {
  /** Accounts that own keys and checkout sessions (two, so that one never sees the other's). */
  accounts: Role[];
  /** Everyone whose view of the Audience the model predicts. */
  viewers: Role[];
  /** Minds the add and remove steps name: the owner's and public ones first, then foreign ones. */
  minds: string[];
  addable: number;
  /** The v1 prefixes (`/api/v1`, `/v1`). */
  prefixes: string[];
  /** Collaborators may be removed: the simulator, which the run may reset to bring them back. */
  removals: boolean;
}

const flag: fc.Arbitrary<Flag | undefined> = fc.constantFrom(undefined, true, false, "string" as const);

/** One arbitrary per step kind, so that the scripted sequence can name each kind once. */
export function stepArbitraries(cast: Cast): Record<StepKind, fc.Arbitrary<Step>> {
  const account = fc.constantFrom(...cast.accounts);
  const viewer = fc.constantFrom(...cast.viewers);
  const prefix = fc.nat({ max: cast.prefixes.length - 1 });
  const mind = fc.nat({ max: Math.max(0, cast.minds.length - 1) });
  return {
    createKey: fc.record({ k: fc.constant("createKey"), as: account, prefix }),
    useKey: fc.record({ k: fc.constant("useKey"), key: fc.nat(20) }),
    deleteKey: fc.record({ k: fc.constant("deleteKey"), as: account, key: fc.nat(20), prefix }),
    listKeys: fc.record({ k: fc.constant("listKeys"), as: account }),
    put: fc
      .record({
        k: fc.constant("put"),
        as: viewer,
        isPublic: flag,
        isSharedWithTeam: flag,
        prefix,
        rename: fc.boolean(),
      })
      .map((s) => JSON.parse(JSON.stringify(s)) as Step),
    view: fc.record({ k: fc.constant("view"), as: viewer, prefix, preview: fc.boolean() }),
    follow: fc.record({ k: fc.constant("follow"), as: viewer, undo: fc.boolean() }),
    deleteAudience: fc.record({
      k: fc.constant("deleteAudience"),
      as: fc.constantFrom(...cast.viewers.filter((r) => r !== "owner")),
    }),
    addMembers: fc.record({
      k: fc.constant("addMembers"),
      as: viewer,
      minds: fc.uniqueArray(mind, { minLength: 1, maxLength: 3 }),
      repeat: fc.boolean(),
    }),
    removeMember: fc.record({ k: fc.constant("removeMember"), as: viewer, mind }),
    createFormation: fc.record({
      k: fc.constant("createFormation"),
      as: viewer,
      subgroups: fc.integer({ min: 2, max: 5 }),
    }),
    formation: fc.record({
      k: fc.constant("formation"),
      as: viewer,
      f: fc.nat(20),
      op: fc.constantFrom("get", "delete", "recompute"),
    }),
    listFormations: fc.record({ k: fc.constant("listFormations"), as: viewer, limit: fc.nat(1000) }),
    preview: fc.record({ k: fc.constant("preview"), as: viewer }),
    settle: fc.constant({ k: "settle" }),
    createSession: fc.record({ k: fc.constant("createSession"), as: account }),
    session: fc.record({
      k: fc.constant("session"),
      as: account,
      s: fc.nat(20),
      op: fc.constantFrom("get", "refresh", "cancel", "complete"),
    }),
    replaySession: fc.record({ k: fc.constant("replaySession"), s: fc.nat(20), sameBody: fc.boolean() }),
    listCollaborators: fc.record({ k: fc.constant("listCollaborators"), as: viewer }),
    // Team-plan and non-editing callers only: a premium editor's copies would run into its Mind cap, which
    // the model cannot know.
    exportReport: fc.record({ k: fc.constant("exportReport"), as: viewer }),
    duplicate: fc.record({
      k: fc.constant("duplicate"),
      as: fc.constantFrom(
        ...(["teammate", "studyViewer", "outsider"] as Role[]).filter((r) => cast.viewers.includes(r)),
      ),
    }),
    // Without removals, the step only asks for the list, which changes nothing.
    removeCollaborator: cast.removals
      ? fc.record({
          k: fc.constant("removeCollaborator"),
          as: viewer,
          who: fc.constantFrom(
            ...(["admin", "member", "owner"] as Role[]).filter((r) => cast.viewers.includes(r)),
          ),
        })
      : fc.record({ k: fc.constant("listCollaborators"), as: viewer }),
  } as Record<StepKind, fc.Arbitrary<Step>>;
}

/** A step as one line, the form a failure report lists it in. */
export function describeStep(s: Step): string {
  const { k, ...rest } = s;
  return `${k}(${Object.entries(rest)
    .map(([n, v]) => `${n}=${JSON.stringify(v)}`)
    .join(", ")})`;
}
