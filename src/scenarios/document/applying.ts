/** What applying a scenario document keeps at hand: the builder, the problems found, handle look-ups. */

import type { Training } from "../../contract/scenario-document.gen.ts";
import type { ScenarioProblem } from "../../core/world/scenario.ts";
import type { AudienceRecord, MindRecord, MindTraining, UserRecord } from "../../core/world/state.ts";
import { COMPLETED_TRAINING } from "../../resources/minds.ts";
import type { MindSeriesOptions, ScenarioBuilder } from "../builder.ts";
import { TRAINING_STATES } from "../training.ts";

/** Where problems go, and how a document's handles are found in what is built so far. */
export class Applying {
  readonly problems: ScenarioProblem[] = [];
  /**
   * Handles (`users/dev`) the document declares but that were not made: left out for a problem already
   * reported (a schema problem, a dangling owner). A reference to one is not reported again: the problem is
   * the record's own, and saying "names nothing" about a handle that is in the file would mislead.
   */
  private readonly broken: Set<string>;

  readonly b: ScenarioBuilder;
  constructor(b: ScenarioBuilder, broken: Iterable<string> = []) {
    this.b = b;
    this.broken = new Set(broken);
  }

  problem(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  /** A handle of `kind` was not made because of a problem already reported. */
  markBroken(kind: HandleKind, handle: string): void {
    this.broken.add(`${kind}/${handle}`);
  }

  /** Whether a reference to this handle fails only because of a problem already reported. */
  isBroken(kind: HandleKind, handle: string): boolean {
    return this.broken.has(`${kind}/${handle}`) || this.broken.has(`${kind}/*`);
  }

  /** A problem about a reference, unless the handle it names is broken (then it was reported already). */
  dangling(kind: HandleKind, handle: string, path: string, message: string): void {
    if (!this.isBroken(kind, handle)) this.problem(path, message);
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
    if (!u)
      this.dangling(
        "users",
        handle,
        path,
        `names no user of this scenario (${known(this.b.manifest.users)})`,
      );
    return u;
  }
}

/** The sections of a scenario document whose keys are handles. */
export const HANDLE_KINDS = [
  "teams",
  "users",
  "minds",
  "audiences",
  "formations",
  "studies",
  "prices",
] as const;
export type HandleKind = (typeof HANDLE_KINDS)[number];

export function trainingOf(t: Training): MindTraining {
  return { ...(t === "completed" ? COMPLETED_TRAINING : TRAINING_STATES[t]) };
}

/**
 * `count` generated Minds of `owner`, as IDs: made when first read (ScenarioBuilder.lazyMinds), as the
 * built-in panels are, or at once when the document states their training (it is set on each record).
 */
export function generated(
  w: Applying,
  owner: UserRecord,
  count: number,
  series: MindSeriesOptions,
  training: Training | undefined,
): string[] {
  if (training === undefined) return w.b.lazyMinds(owner, count, series);
  const made = w.b.minds(owner, count, series);
  for (const mind of made) mind.training = trainingOf(training);
  return made.map((m) => m.id);
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

/**
 * Whether the ID a document states for a record (`/audiences/x/id`) may be its ID: the record's own when it
 * extends one of the extended scenario (which keeps its ID), and no other record's of its kind. Reported at
 * `path/id` when not.
 */
export function statedIdFits(
  w: Applying,
  kind: "audiences" | "minds" | "formations",
  path: string,
  stated: string | undefined,
  existing: string | undefined,
): boolean {
  if (stated === undefined || stated === existing) return true;
  const table = w.b.state[kind] as ReadonlyMap<string, unknown>;
  if (existing !== undefined)
    w.problem(
      `${path}/id`,
      `is not the ID this record has in the extended scenario (${existing}); it keeps that one`,
    );
  else if (table.has(stated)) w.problem(`${path}/id`, `is already the ID of another record of /${kind}`);
  else return true;
  return false;
}
