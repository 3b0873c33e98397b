/**
 * Fault rules set through the control plane: answer a matching request with a status, delay it, or both,
 * for a number of times or with a probability (drawn from the simulator's own seeded stream).
 */
import type { Rng } from "../../generators/prng.ts";

export interface FaultRule {
  id: number;
  method?: string;
  /** A glob over the request path: `*` matches within a segment, `**` across segments. */
  path?: string;
  status?: number;
  delayMs?: number;
  times?: number;
  probability?: number;
}

export type FaultInput = Omit<FaultRule, "id">;

export class Faults {
  private rules: (FaultRule & { matcher: RegExp | null })[] = [];
  private nextId = 1;

  private readonly rng: Rng;
  constructor(rng: Rng) {
    this.rng = rng;
  }

  add(input: FaultInput): FaultRule {
    const rule: FaultRule = { id: this.nextId++, ...input };
    this.rules.push({ ...rule, matcher: input.path ? globToRegExp(input.path) : null });
    return rule;
  }

  clear(): void {
    this.rules = [];
  }

  /** Disarms one rule; false when no rule has that ID. */
  remove(id: number): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  list(): FaultRule[] {
    return this.rules.map(({ matcher: _m, ...r }) => r);
  }

  /** The first rule that fires for this request, consuming one of its `times`. */
  take(method: string, path: string): FaultRule | null {
    for (const r of this.rules) {
      if (r.method && r.method.toUpperCase() !== method) continue;
      if (r.matcher && !r.matcher.test(path)) continue;
      if (r.probability !== undefined && this.rng.next() >= r.probability) continue;
      if (r.times !== undefined) {
        r.times--;
        if (r.times <= 0) this.rules = this.rules.filter((x) => x !== r);
      }
      const { matcher: _m, ...rule } = r;
      return rule;
    }
    return null;
  }
}

export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        re += ".*";
        i++;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}
