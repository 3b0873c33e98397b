/**
 * Stages that compose, as hono's middleware do: a stage is handed the call and the rest of the way
 * (`next`), and does its part before it (and passes the call on, grown by what it found out), instead of
 * it (answers), or around it (waits for the answer and does something after). A way is built with
 * `way<Start>().through(a).through(b).end(last)`; each stage says which phase of a call it takes and what
 * it adds to it (./call.ts), so a stage placed before what it needs does not compile. Whatever else a
 * call holds passes through untouched (a replay's call holds the change it makes again).
 *
 * Why answers may come back unawaited: most requests (a read answered from the kept answers) need no
 * turn of the event loop, and a promise per stage would cost every request one.
 */
import type { Outcome } from "../request/exchange.ts";

/** An answer, now or later. */
export type Done = Outcome | Promise<Outcome>;
/** The rest of the way, handed the call as this stage grew it. */
export type Next<C> = (call: C) => Done;

/**
 * A stage that takes any call holding `In`, and hands on the same call holding `Add` as well: whatever else
 * the call holds passes through (`C`).
 */
export interface Stage<In, Add = unknown> {
  readonly name: string;
  readonly run: <C extends In>(call: C, next: Next<C & Add>) => Done;
  /**
   * Never set: it states what the stage takes in a form the compiler checks strictly (a generic `run`'s
   * bound is not compared when one stage is put where another is expected).
   */
  readonly takes?: (call: In) => void;
}

/** The stages from a call's start, in order, up to one that takes a `Cur`. */
export class Way<Start, Cur> {
  private readonly stages: readonly Stage<unknown, unknown>[];
  private constructor(stages: readonly Stage<unknown, unknown>[]) {
    this.stages = stages;
  }

  static start<C>(): Way<C, C> {
    return new Way<C, C>([]);
  }

  through<Add>(stage: Stage<Cur, Add>): Way<Start, Cur & Add> {
    return new Way<Start, Cur & Add>([...this.stages, stage as Stage<unknown, unknown>]);
  }

  /** The names of the stages so far, in order (for tests and the README's drawing). */
  get names(): readonly string[] {
    return this.stages.map((s) => s.name);
  }

  /** The way, ending in `last` (which answers whatever reached it): one function from the first stage on. */
  end(last: Next<Cur>): Next<Start> {
    let next = last as Next<unknown>;
    for (let i = this.stages.length - 1; i >= 0; i--) {
      const run = (this.stages[i] as Stage<unknown, unknown>).run;
      const rest = next;
      next = (call) => run(call, rest);
    }
    return next as Next<Start>;
  }
}

export const way = <C>(): Way<C, C> => Way.start<C>();

/** `call`, now also holding `part`: set on the same object, so that a request makes no copy per stage. */
export function grown<C extends object, P extends object>(call: C, part: P): C & P {
  return Object.assign(call, part);
}

/** `then` on an answer that may already be here, without a turn when it is. */
export function whenDone(done: Done, then: (answer: Outcome) => Done): Done {
  return done instanceof Promise ? done.then(then) : then(done);
}

/** `next(call)`, once `waited` (a promise or nothing) is over. */
export function after<C>(waited: Promise<unknown> | undefined, next: Next<C>, call: C): Done {
  return waited === undefined ? next(call) : waited.then(() => next(call));
}

/** `run()`, or what `rescue` makes of what it threw, now or later. */
export function rescued(run: () => Done, rescue: (error: unknown) => Done): Done {
  let done: Done;
  try {
    done = run();
  } catch (error) {
    return rescue(error);
  }
  return done instanceof Promise ? done.catch(rescue) : done;
}
