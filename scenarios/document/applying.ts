/** What applying a scenario document keeps at hand: the builder, the problems found, handle look-ups. */
import type { ScenarioProblem } from "../../src/core/scenario.ts";
import type { AudienceRecord, MindRecord, MindTraining, UserRecord } from "../../src/core/state.ts";
import { COMPLETED_TRAINING } from "../../src/resources/minds.ts";
import type { ScenarioBuilder } from "../builder.ts";
import { TRAINING_STATES } from "../training.ts";
import type { Training } from "./types.gen.ts";

/** Where problems go, and how a document's handles are found in what is built so far. */
export class Applying {
  readonly problems: ScenarioProblem[] = [];

  constructor(readonly b: ScenarioBuilder) {}

  problem(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  user(handle: string): UserRecord | undefined {
    const id = this.b.manifest.users[handle]?.id;
    return id === undefined ? undefined : this.b.state.users.get(id);
  }

  mind(handle: string): MindRecord | undefined {
    const id = this.b.manifest.minds[handle]?.id;
    return id === undefined ? undefined : this.b.state.minds.get(id);
  }

  audience(handle: string): AudienceRecord | undefined {
    const id = this.b.manifest.audiences[handle]?.id;
    return id === undefined ? undefined : this.b.state.audiences.get(id);
  }

  /** The user a handle names, or a problem at `path` saying which handles there are. */
  needUser(handle: string, path: string): UserRecord | undefined {
    const u = this.user(handle);
    if (!u) this.problem(path, `names no user of this scenario (${known(this.b.manifest.users)})`);
    return u;
  }
}

export function trainingOf(t: Training): MindTraining {
  return { ...(t === "completed" ? COMPLETED_TRAINING : TRAINING_STATES[t]) };
}

/** A document's map of handles, in the order written. */
export function entries<T>(map: { [k: string]: T } | undefined): [string, T][] {
  return map ? Object.entries(map) : [];
}

/** The handles of a manifest section, for a message. */
export function known(section: Record<string, unknown>): string {
  const names = Object.keys(section);
  if (names.length === 0) return "there are none";
  return `known: ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}`;
}
