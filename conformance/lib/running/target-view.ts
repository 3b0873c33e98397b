/**
 * What a check sees of its target: the keys, handles and user IDs its world or config names (a missing one
 * is a MissingHandle, which a case takes as "left"), its v1 prefixes, its control plane, and time moved on
 * its clock or waited out in real time.
 */
import type { Credentials } from "../http/http.ts";
import { BudgetSpent, sleep } from "../http/http.ts";
import type { Role, TargetInfo } from "../http/target.ts";

/** A key, handle or user ID the target's world or config does not name. */
export class MissingHandle extends Error {}

export class Target {
  readonly info: TargetInfo;
  /** How the control plane is reached (global fetch unless a run gives its own). */
  private readonly fetchFn: typeof globalThis.fetch | undefined;
  constructor(info: TargetInfo, fetchFn?: typeof globalThis.fetch) {
    this.info = info;
    this.fetchFn = fetchFn;
  }

  get isSimulator(): boolean {
    return this.info.kind === "simulator";
  }

  cred(role: Role): Credentials {
    const key = this.info.keys[role];
    if (!key) throw new MissingHandle(`keys.${role}`);
    return { key, label: role };
  }

  has(role: Role): boolean {
    return Boolean(this.info.keys[role]);
  }

  audience(handle: string): string {
    const id = this.info.audiences[handle];
    if (!id) throw new MissingHandle(`readable.audiences.${handle}`);
    return id;
  }

  mind(handle: string): string {
    const id = this.info.minds[handle];
    if (!id) throw new MissingHandle(`readable.minds.${handle}`);
    return id;
  }

  formation(handle: string): { id: string; audience: string } {
    const f = this.info.formations[handle];
    if (!f) throw new MissingHandle(`readable.formations.${handle}`);
    return f;
  }

  user(role: Role): string {
    const id = this.info.users[role];
    if (!id) throw new MissingHandle(`users.${role}`);
    return id;
  }

  canChange(handle: string): boolean {
    return !this.info.readOnly && this.info.changeableAudiences.includes(handle);
  }

  /** The server prefix for an operation's contract prefixes. */
  prefixFor(prefixes: readonly string[]): string {
    if (prefixes.includes("/api/v1")) return this.info.prefix;
    if (prefixes.includes("/api/acp")) return this.info.acpPrefix;
    return prefixes[0] ?? "";
  }

  /** Every prefix the v1 interface is served under on this origin. */
  v1Prefixes(): string[] {
    return [this.info.prefix, ...this.info.extraPrefixes];
  }

  async control(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.info.controlToken) headers["x-sim-control-token"] = this.info.controlToken;
    const res = await (this.fetchFn ?? fetch)(`${this.info.controlBase}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`control plane ${method} ${path} answered ${res.status}`);
    return res.status === 204 ? null : res.json();
  }

  /**
   * Builds the simulator's world again from its scenario and seed (the same keys and IDs): how a check
   * undoes what the API cannot, such as a collaborator's removal. Needs `needs.reset`.
   */
  async rebuild(): Promise<void> {
    const m = (await this.control("GET", "/manifest")) as { scenario: string; seed: number };
    // The world the run chose (a scenario document has no name a reset could pick it by).
    await this.control("POST", "/reset", { scenario: this.info.world ?? m.scenario, seed: m.seed });
  }

  /** Moves time: the simulator's virtual clock, or real waiting against a deployment. */
  async advance(ms: number): Promise<void> {
    if (this.isSimulator) await this.control("POST", "/clock/advance", { ms: Math.ceil(ms) });
    else {
      // Real waiting spends the run's time budget: a wait past its end is not begun.
      const deadline = this.info.deadline;
      if (deadline != null && Date.now() + ms > deadline)
        throw new BudgetSpent(`the run's time budget ends before a wait of ${Math.round(ms / 1000)} s would`);
      await sleep(ms);
    }
  }
}
