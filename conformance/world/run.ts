/**
 * Runs world sequences as fast-check model-based commands (the World is the model, the target the real
 * system): a scripted one that takes every kind of step, then random ones that fast-check draws and, on a
 * failure, shrinks to the shortest sequence that still fails. Every sequence starts from
 * the target as it is and ends by putting back what it changed. A failure is reported with its seed, the
 * shrunk steps, a file for `--replay` and the failing run's requests as curl lines.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import fc from "fast-check";
import type { Exchange } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import { reportsDir } from "../lib/reporting/paths.ts";
import { curlFor, type Violation } from "../lib/reporting/report.ts";
import type { CheckContext } from "../lib/running/context.ts";
import {
  addMembers,
  deleteAudience,
  duplicate,
  exportReport,
  follow,
  put,
  removeMember,
  view,
} from "./audience.ts";
import { cleanupSessions, createSession, replaySession, session } from "./checkout.ts";
import { listCollaborators, removeCollaborator } from "./collaborators.ts";
import {
  cleanupFormations,
  createFormation,
  formation,
  listFormations,
  preview,
  settleFormations,
} from "./formations.ts";
import { cleanupKeys, createKey, deleteKey, listKeys, useKey } from "./keys.ts";
import type { World } from "./model.ts";
import { type Cast, describeStep, type Step, type StepKind, stepArbitraries } from "./steps.ts";

type Perform = (c: CheckContext, w: World, cast: Cast, s: never) => Promise<void>;

const PERFORM: Record<StepKind, Perform> = {
  createKey,
  useKey,
  deleteKey,
  listKeys,
  put,
  view,
  follow,
  deleteAudience,
  addMembers,
  removeMember,
  createFormation,
  formation,
  listFormations,
  preview,
  settle: async (c, w) => {
    await c.target.advance(c.target.isSimulator ? 5_000 : 500);
    await settleFormations(c, w);
  },
  createSession,
  session,
  replaySession,
  listCollaborators,
  removeCollaborator,
  duplicate,
  exportReport,
};

/** Steps that need something in the model to act on. */
function applicable(s: Step, w: World): boolean {
  if (s.k === "useKey" || s.k === "deleteKey") return w.keys.length > 0;
  if (s.k === "formation") return w.formations.length > 0;
  if (s.k === "session" || s.k === "replaySession") return w.sessions.length > 0;
  return true;
}

export interface Outcome {
  found: Violation[];
  ran: Step[];
  exchanges: Exchange[];
  /** What each step of `ran` found. */
  foundAt: Violation[][];
}

/** How long, and how many requests, shrinking one failure may take. */
export interface ShrinkBudget {
  ms: number;
  requests: number;
}

/** What a shrunk sequence must still show: the same rule broken, found by the same check. */
type Signature = { check: string; rule: string };

/** The model's own findings come first: a response rule broken on the way is not what the model is about. */
function signatureOf(found: readonly Violation[], checkName: string): Signature {
  const v = found.find((x) => x.check === checkName) ?? (found[0] as Violation);
  return { check: v.check, rule: v.rule };
}

const shows = (found: readonly Violation[], sig: Signature) =>
  found.some((v) => v.check === sig.check && v.rule === sig.rule);

/** The steps up to and including the first one that shows the signature. */
function upTo(o: Outcome, sig: Signature): Step[] {
  const at = o.foundAt.findIndex((f) => shows(f, sig));
  return o.ran.slice(0, at + 1);
}

export class WorldRunner {
  private initial: {
    name: string;
    isPublic: boolean;
    isSharedWithTeam: boolean;
    members: Set<string>;
  } | null = null;

  readonly ctx: CheckContext;
  readonly cast: Cast;
  readonly audienceId: string;
  constructor(ctx: CheckContext, cast: Cast, audienceId: string) {
    this.ctx = ctx;
    this.cast = cast;
    this.audienceId = audienceId;
  }

  /** The world as the target has it now, read through the owner. */
  async start(): Promise<World> {
    const c = this.ctx;
    const params = { audienceId: this.audienceId };
    const detail = await c.call({ op: "getAudience", params, as: c.as("owner") });
    const name = detail.body?.data?.name as string;
    // PUT with the name alone changes nothing and answers every sharing flag.
    const now = await c.call({ op: "updateAudience", params, as: c.as("owner"), json: { name } });
    if (detail.status !== 200 || now.status !== 200)
      throw new Error(`the owner cannot read and update the Audience (${detail.status}, ${now.status})`);
    const d = now.body.data;
    const members = new Set<string>(((detail.body.data.minds ?? []) as { id: string }[]).map((m) => m.id));
    this.initial ??= {
      name,
      isPublic: d.isPublic,
      isSharedWithTeam: d.isSharedWithTeam,
      members: new Set(members),
    };
    return {
      audienceId: this.audienceId,
      name,
      isPublic: d.isPublic,
      isSharedWithTeam: d.isSharedWithTeam,
      isLinkSharingEnabled: d.isLinkSharingEnabled,
      members,
      keys: [],
      formations: [],
      sessions: [],
      followers: new Set(),
      removed: new Set(),
      copies: [],
    };
  }

  /** Puts back what a sequence changed (`verify`, after the last one, reports what stayed changed). */
  async finish(w: World): Promise<void> {
    const c = this.ctx;
    const init = this.initial;
    if (!init) return;
    const owner = c.as("owner");
    const params = { audienceId: this.audienceId };
    const flags = (isPublic: boolean) =>
      c.call({
        op: "updateAudience",
        params,
        as: owner,
        json: { name: init.name, isPublic, isSharedWithTeam: w.isSharedWithTeam },
      });
    await cleanupFormations(c, w, async (on) => void (await flags(on)));
    await c.call({
      op: "updateAudience",
      params,
      as: owner,
      json: { name: init.name, isPublic: init.isPublic, isSharedWithTeam: init.isSharedWithTeam },
    });
    for (const id of w.members)
      if (!init.members.has(id))
        await c.call({ op: "removeMember", params: { ...params, mindId: id }, as: owner });
    const back = [...init.members].filter((id) => !w.members.has(id));
    if (back.length) await c.call({ op: "addMembers", params, as: owner, json: { mindIds: back } });
    for (const r of w.followers) await c.call({ op: "unfollowAudience", params, as: c.as(r as Role) });
    await cleanupKeys(c, w);
    await cleanupSessions(c, w);
    for (const copy of w.copies)
      await c.call({ op: "deleteAudience", params: { audienceId: copy.id }, as: c.as(copy.by) });
    // The API cannot undo a removal (invitations are not described); the same scenario and seed can.
    if (w.removed.size) await c.target.rebuild();
  }

  /** After the last sequence: the Audience is as the run found it, or what differs is reported as left over. */
  async verify(): Promise<void> {
    const init = this.initial;
    if (!init) return;
    const now = await this.start();
    const differs = [
      now.name !== init.name && `name is ${JSON.stringify(now.name)}, was ${JSON.stringify(init.name)}`,
      now.isPublic !== init.isPublic && `isPublic is ${now.isPublic}, was ${init.isPublic}`,
      now.isSharedWithTeam !== init.isSharedWithTeam &&
        `isSharedWithTeam is ${now.isSharedWithTeam}, was ${init.isSharedWithTeam}`,
      (now.members.size !== init.members.size || [...init.members].some((id) => !now.members.has(id))) &&
        `${now.members.size} members, was ${init.members.size}`,
    ].filter((d): d is string => typeof d === "string");
    for (const d of differs) this.ctx.leftover(`Audience ${this.audienceId}: ${d}`);
  }

  /** Runs one sequence from a fresh start; returns what it found and the requests it made. */
  runSequence(steps: Iterable<Step>): Promise<Outcome> {
    return this.runCommands([...steps].map((st) => this.command(st)));
  }

  /**
   * Runs commands (made by `command`) from a fresh start. fast-check's own commands go straight to its
   * model runner, which marks those that ran: its shrinker keeps only them.
   */
  async runCommands(cmds: Iterable<fc.AsyncCommand<World, CheckContext>>): Promise<Outcome> {
    const outcome: Outcome = { found: [], ran: [], exchanges: [], foundAt: [] };
    // The failing run's own requests, from its start to its last step (not the cleanup), make the script.
    let stop: (() => void) | null = this.ctx.client.observe((ex) => outcome.exchanges.push(ex));
    const quiet = () => {
      stop?.();
      stop = null;
    };
    try {
      const w = await this.start();
      try {
        // fast-check's model runner: a step runs when its precondition holds on the model (`check`).
        this.recording = outcome;
        await fc.asyncModelRun(() => ({ model: w, real: this.ctx }), cmds);
      } finally {
        this.recording = null;
        quiet();
        await this.finish(w);
      }
    } finally {
      quiet();
    }
    return outcome;
  }

  /** Where the commands of the sequence running now write what they ran and found. */
  private recording: Outcome | null = null;
  /** Why shrinking stopped short of trying every candidate, once its budget ran out. */
  private cut: string | null = null;

  /** A step as a fast-check model-based command over the World (the model) and the target (the real system). */
  command(step: Step): fc.AsyncCommand<World, CheckContext> {
    const perform = PERFORM[step.k] as (c: CheckContext, w: World, cast: Cast, s: Step) => Promise<void>;
    return {
      check: (w) => applicable(step, w),
      run: async (w, c) => {
        const seen = await c.isolate(() => perform(c, w, this.cast, step));
        this.recording?.ran.push(step);
        this.recording?.foundAt.push(seen);
        this.recording?.found.push(...seen);
      },
      toString: () => describeStep(step),
    };
  }

  /**
   * Shrinks a failing sequence that fast-check did not draw (the scripted one, a replayed one): cut it after
   * the first failing step, then drop earlier steps one at a time while it still fails, within `budgetMs`.
   */
  async shrink(failing: Outcome, budget: ShrinkBudget): Promise<Outcome> {
    const within = this.within(budget);
    const sig = signatureOf(failing.found, this.ctx.checkName);
    let best = failing;
    let steps = upTo(failing, sig);
    if (steps.length < failing.ran.length && within()) {
      const again = await this.runSequence(steps);
      if (shows(again.found, sig)) best = again;
      else steps = failing.ran;
    }
    for (let i = steps.length - 2; i >= 0 && within(); i--) {
      const out = await this.runSequence([...steps.slice(0, i), ...steps.slice(i + 1)]);
      if (!shows(out.found, sig)) continue;
      best = out;
      steps = upTo(out, sig);
      i = Math.min(i, steps.length - 1);
    }
    return best;
  }

  /**
   * Whether shrinking may try one more candidate: within `budget`'s time and requests from now. The first
   * "no" is remembered (`cut`), for the report to say the sequence may not be the shortest.
   */
  private within(budget: ShrinkBudget): () => boolean {
    const deadline = Date.now() + budget.ms;
    const limit = this.sentSoFar() + budget.requests;
    return () => {
      if (Date.now() < deadline && this.sentSoFar() < limit) return true;
      this.cut ??= `shrinking stopped at its budget (${budget.ms / 1000} s, ${budget.requests} requests): a shorter sequence may exist`;
      return false;
    };
  }

  private sentSoFar(): number {
    let n = 0;
    for (const k of this.ctx.client.sent.values()) n += k;
    return n;
  }

  /** Random sequences, shrunk on failure; findings go to the check with the shrunk sequence attached. */
  async explore(label: string, numRuns: number, maxCommands: number, budget: ShrinkBudget): Promise<void> {
    const arbs = Object.values(stepArbitraries(this.cast)).map((a) => a.map((step) => this.command(step)));
    const seed = this.ctx.propertySeed(label);
    let last: Outcome | null = null;
    let within: (() => boolean) | null = null;
    let sig: Signature | null = null;
    const result = await fc.check(
      fc.asyncProperty(fc.commands(arbs, { maxCommands, size: "max" }), async (cmds) => {
        // Past the shrinking budget every candidate "passes" unrun, so fast-check ends on the last failure.
        if (within && !within()) return true;
        const outcome = await this.runCommands(cmds);
        if (!outcome.found.length) return true;
        // Shrinking keeps to the first failure's rule, so that it does not wander off to another one.
        sig ??= signatureOf(outcome.found, this.ctx.checkName);
        if (!shows(outcome.found, sig)) return true;
        last = outcome;
        within ??= this.within(budget);
        return false;
      }),
      { seed, numRuns },
    );
    if (result.failed && !last && result.errorInstance) throw result.errorInstance;
    if (last) this.report(last, { seed, path: result.counterexamplePath ?? "" });
  }

  /**
   * Attaches a failing run's sequence to its findings and saves it twice: as JSON for `--replay`, and as the
   * run's requests in curl form (keys made during the run show as `$KEY_<ROLE>_NEW`; `--replay` makes fresh ones).
   */
  report(outcome: Outcome, property: { seed: number; path: string } | null, shrunk = true): void {
    const info = this.ctx.info;
    const base = join(reportsDir(), `sequence-${this.ctx.checkName.replaceAll("/", "-")}-${info.seed}`);
    const script = outcome.exchanges.map(curlFor);
    let replayFile: string | null = `${base}.json`;
    try {
      mkdirSync(reportsDir(), { recursive: true });
      const saved = { check: this.ctx.checkName, seed: info.seed, ...property, steps: outcome.ran };
      writeFileSync(replayFile, `${JSON.stringify(saved, null, 2)}\n`);
      writeFileSync(
        `${base}.sh`,
        `#!/bin/sh\n# ${this.ctx.checkName}, seed ${info.seed}: the failing sequence's requests\n${script.join("\n")}\n`,
      );
      const near = relative(process.cwd(), replayFile);
      if (!near.startsWith("..")) replayFile = near;
    } catch {
      replayFile = null;
    }
    const sequence = {
      steps: outcome.ran.map(describeStep),
      replayFile,
      script,
      shrunk,
      ...(shrunk && this.cut ? { cut: this.cut } : {}),
    };
    this.ctx.adopt(
      outcome.found.map((v) => ({
        ...v,
        seed: info.seed,
        ...(property ? { propertySeed: property.seed, path: property.path } : {}),
        sequence,
      })),
    );
  }
}

/** Reads a sequence saved by a failing run. */
export function loadSequence(file: string): Step[] {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { steps?: unknown };
  if (!Array.isArray(parsed.steps)) throw new Error(`${file} holds no steps`);
  return parsed.steps as Step[];
}
