/**
 * The virtual clock and its job queue: the only place simulated time comes from.
 *
 * Jobs are data (`kind` + JSON payload), not closures, so that the queue can be saved with the rest of the
 * state and replayed in the same order after a restart. Due jobs run lazily: the engine calls `runDue()`
 * before it serves each request, and `advance()` runs them in order while moving a manual clock. Because
 * state is only observable through requests, this is indistinguishable from timers firing on time, needs
 * no `setTimeout`, and keeps runs deterministic.
 */
export type ClockMode = "real" | "manual";

export interface Job {
  /** Virtual time (epoch ms) at which the job is due. */
  at: number;
  /** Insertion order, the tie-break between jobs due at the same instant. */
  seq: number;
  /** Names the handler that runs it; resource modules register handlers by kind. */
  kind: string;
  payload: unknown;
}

export type JobRunner = (job: Job) => void;

/** Where real time comes from; injected so the core never reads the wall clock itself. */
export type WallClock = () => number;

export interface ClockSnapshot {
  now: number;
  seq: number;
  jobs: Job[];
  /** Whether time moves by itself; a world saved on a manual clock comes back on one. Absent in older snapshots. */
  mode?: ClockMode;
}

export class VirtualClock {
  private offset: number;
  private wallStart: number;
  private seq = 0;
  private jobs: Job[] = [];
  /**
   * The same jobs by kind. Resources ask whether one of their jobs is still queued (is a build stalled?)
   * on every listing, and a manual clock may hold thousands of other jobs that are not yet due.
   */
  private byKind = new Map<string, Set<Job>>();
  private running = false;
  /** While a job runs, time reads as the job's due time, so the work it schedules is relative to that. */
  private pinned: number | null = null;
  /**
   * While a change is made (`settle` to `release`), time stands still: a real clock would otherwise move
   * between two readings of one request, and a replay of the change could not read the same instants.
   */
  private held: number | null = null;
  /** Jobs run so far: a host can tell whether serving a request moved the world on. */
  ran = 0;
  /** The last `nowIso()` answer and the time it is for. */
  private isoAt = Number.NaN;
  private iso = "";

  readonly mode: ClockMode;
  private readonly wall: WallClock;
  private readonly runJob: JobRunner;
  constructor(mode: ClockMode, start: number, wall: WallClock, runJob: JobRunner) {
    this.mode = mode;
    this.wall = wall;
    this.runJob = runJob;
    this.offset = start;
    this.wallStart = wall();
  }

  /** Current virtual time in epoch milliseconds. */
  now(): number {
    if (this.pinned !== null) return this.pinned;
    if (this.held !== null) return this.held;
    return this.mode === "real" ? this.offset + (this.wall() - this.wallStart) : this.offset;
  }

  nowIso(): string {
    const now = this.now();
    // Every request's journal entry asks; a manual clock stands still, a real one moves by the millisecond.
    if (now !== this.isoAt) {
      this.isoAt = now;
      this.iso = new Date(now).toISOString();
    }
    return this.iso;
  }

  schedule(delayMs: number, kind: string, payload: unknown): Job {
    const job: Job = { at: this.now() + Math.max(0, delayMs), seq: this.seq++, kind, payload };
    // Keep the queue sorted by (at, seq); it is short, so insertion beats a heap in clarity.
    let i = this.jobs.length;
    while (i > 0 && compareJobs(this.jobs[i - 1] as Job, job) > 0) i--;
    this.jobs.splice(i, 0, job);
    this.index(job);
    return job;
  }

  /** Drops queued jobs that match, e.g. the pending build of a deleted Formation. */
  cancel(match: (job: Job) => boolean): void {
    this.jobs = this.jobs.filter((j) => {
      if (!match(j)) return true;
      this.unindex(j);
      return false;
    });
  }

  /** The queued jobs in the order they will run. */
  pending(): readonly Job[] {
    return this.jobs;
  }

  /** The queued jobs of one kind, in no particular order. */
  pendingOf(kind: string): Iterable<Job> {
    return this.byKind.get(kind) ?? [];
  }

  private index(job: Job): void {
    const set = this.byKind.get(job.kind);
    if (set) set.add(job);
    else this.byKind.set(job.kind, new Set([job]));
  }

  private unindex(job: Job): void {
    this.byKind.get(job.kind)?.delete(job);
  }

  /** Starts counting real time from now (after a scenario build, whose own duration is not simulated time). */
  rebase(): void {
    this.wallStart = this.wall();
  }

  /** Runs every job due by now, including jobs those jobs schedule for no later than now. */
  runDue(): number {
    const t = this.now();
    this.runUntil(t);
    return t;
  }

  /**
   * Runs every job due by now and holds time there until `release()`: the instant a change is made at.
   * A change log records it, and a replay passes it back as `at`, so the change sees the same instants.
   */
  settle(at?: number): number {
    if (at !== undefined) this.moveTo(at);
    const t = this.runDue();
    this.held = t;
    return t;
  }

  release(): void {
    this.held = null;
  }

  /**
   * Replays time to `t`: runs the jobs due by then and makes `t` the present (a real clock counts on from
   * it). A replay's own running time is not simulated time, so `t` may be a little behind a real clock.
   */
  moveTo(t: number): void {
    this.runUntil(t);
    this.offset = t;
    this.wallStart = this.wall();
  }

  /** Moves a manual clock forward, running each job at its own due time. */
  advance(ms: number): void {
    const target = this.now() + ms;
    this.runUntil(target);
    this.offset += ms;
  }

  private runUntil(limit: number): void {
    // A job that schedules work for "now" must not recurse into the loop that is running it.
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.jobs[0]; job !== undefined && job.at <= limit; job = this.jobs[0]) {
        this.jobs.shift();
        this.unindex(job);
        this.ran++;
        this.pinned = job.at;
        try {
          this.runJob(job);
        } finally {
          this.pinned = null;
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Jobs scheduled so far. */
  get scheduled(): number {
    return this.seq;
  }

  snapshot(): ClockSnapshot {
    return { now: this.now(), seq: this.seq, jobs: this.jobs.map((j) => ({ ...j })), mode: this.mode };
  }

  restore(snap: ClockSnapshot): void {
    this.offset = snap.now;
    this.wallStart = this.wall();
    this.seq = snap.seq;
    this.jobs = snap.jobs.map((j) => ({ ...j })).sort(compareJobs);
    this.byKind.clear();
    for (const job of this.jobs) this.index(job);
  }
}

function compareJobs(a: Job, b: Job): number {
  return a.at - b.at || a.seq - b.seq;
}
