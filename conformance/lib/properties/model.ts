/** fast-check model-based commands, run against a target with a cleanup after every sequence. */
import fc from "fast-check";
import type { CheckContext } from "../running/context.ts";

export type Cmd<M extends object> = fc.AsyncCommand<M, CheckContext>;

/** A command with a label (what a failure report shows) and its precondition on the model. */
export function command<M extends object>(
  label: string,
  check: (m: M) => boolean,
  run: (m: M, ctx: CheckContext) => Promise<void>,
): Cmd<M> {
  return { check: (m) => check(m as M), run: (m, ctx) => run(m as M, ctx), toString: () => label };
}

/**
 * Runs model-based commands against the target: one scripted sequence first (each command index in
 * `script`, so every command is exercised whatever the random runs draw), then `numRuns` random
 * sequences of up to 8 commands. Each sequence starts from `init()` and ends with `cleanup`.
 */
export async function runModel<M extends object>(
  ctx: CheckContext,
  label: string,
  cmds: fc.Arbitrary<Cmd<M>>[],
  init: () => Promise<M>,
  cleanup: (m: M) => Promise<void>,
  numRuns: number,
  script: number[],
): Promise<void> {
  const scripted = script.map(
    (i, n) => fc.sample(cmds[i] as fc.Arbitrary<Cmd<M>>, { numRuns: 1, seed: n })[0] as Cmd<M>,
  );
  // One scripted sequence first, so every command is exercised whatever the random runs draw.
  const runOnce = async (cmds: Iterable<Cmd<M>>) => {
    const model = await init();
    try {
      await fc.asyncModelRun(
        () => ({ model: model as object, real: ctx }),
        cmds as Iterable<fc.AsyncCommand<object, CheckContext>>,
      );
    } finally {
      await cleanup(model);
    }
  };
  if (scripted.length)
    await ctx.property(`${label} (scripted)`, fc.constant(scripted), runOnce, { numRuns: 1 });
  await ctx.property(label, fc.commands(cmds, { maxCommands: 8 }), runOnce, { numRuns });
}
