/**
 * Targets that misbehave in time rather than in what they answer: a run against each must still end within
 * its time budget with what it checked (time-budget.test, and the deployment rows of `npm run bench`).
 */
import { editJson, type Fault } from "./harness.ts";

/** Every answer `ms` late. */
export const answersLate =
  (ms: number): Fault =>
  async (req, next) => {
    await new Promise((r) => setTimeout(r, ms));
    return next(req);
  };

/** Every Formation the run makes stays `building` (those the world had before are as they were). */
export const buildsNeverFinish: Fault = async (req, next, env) => {
  const made = (env.memory.get("made") as Set<string> | undefined) ?? new Set<string>();
  env.memory.set("made", made);
  const res = await next(req);
  const path = new URL(req.url).pathname;
  const creating = req.method === "POST" && /\/formations$/.test(path) && res.status === 200;
  const id = /\/formations\/([0-9a-f-]{36})(\/recompute)?$/.exec(path)?.[1];
  if (!creating && !(id && made.has(id) && res.status === 200)) return res;
  return editJson(res, (b) => {
    if (!b?.data) return;
    if (creating) made.add(String(b.data.id));
    b.data.status = "building";
    if ("progress" in b.data) b.data.progress = { percent: 50 };
  });
};

/**
 * `ms` after its first request the target stops answering: every request from then on is accepted and
 * never answered (a process that hangs, or a load balancer in front of one), and none is refused.
 */
export const stopsAfter =
  (ms: number): Fault =>
  async (req, next, env) => {
    const first = (env.memory.get("first") as number | undefined) ?? Date.now();
    env.memory.set("first", first);
    if (Date.now() - first < ms) return next(req);
    return new Promise<Response>(() => {});
  };
