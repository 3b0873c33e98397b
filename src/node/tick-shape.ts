/**
 * Keeps one of Node's own `process.nextTick` entries alive for the whole life of the process.
 *
 * Why: Node writes each entry of its tick queue as an object literal whose first three keys are computed
 * (symbols). V8 remembers, at each of those keys, the one hidden class ("map") the object had there, and
 * holds that map weakly. A full collection at a moment when no entry is alive frees those maps; the next
 * entry gets new ones, and from then on V8 takes every such key as "megamorphic" and adds it through the
 * runtime, for the rest of the process. A served request queues about seven ticks (Node's http and stream
 * code), so a process caught that way spent about 5 µs more CPU an `auth/me` (a profile's `nextTick`: 5.7
 * against 0.3 µs a request). Whether it was caught depended on when the full collections of start-up (the
 * world's build, src/cli/memory.ts's) fell: about one start in three, which is most of why two runs of the
 * same build disagreed by a fifth. One entry kept alive keeps its maps, and with them the remembered ones.
 *
 * The entry is the resource Node reports while the tick runs (`executionAsyncResource`): no async hook is
 * installed. It holds only the callback below.
 */
import { executionAsyncResource } from "node:async_hooks";

let kept: object | undefined;

/** Call as early as the process can, before the collections of start-up; once is enough. */
export function keepTickShape(): void {
  if (kept !== undefined) return;
  process.nextTick(() => {
    kept = executionAsyncResource();
  });
}

/** What is kept, for the test that checks it is a tick entry. */
export function keptTick(): object | undefined {
  return kept;
}
