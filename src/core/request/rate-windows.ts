/**
 * Per-account fixed windows on the virtual clock, as long as the contract's `x-rate-limit` says (a minute).
 * A window starts at the first request of an account; `Retry-After` is the whole seconds until it ends.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  private readonly windowMs: number;
  /** `windowMs`: the contract's window (`x-rate-limit.windowSeconds`). */
  constructor(windowMs: number) {
    this.windowMs = windowMs;
  }

  take(account: string, now: number, limit: number): RateDecision {
    let w = this.windows.get(account);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(account, w);
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    if (w.count >= limit) return { allowed: false, limit, remaining: 0, retryAfterSeconds };
    w.count++;
    return { allowed: true, limit, remaining: limit - w.count, retryAfterSeconds };
  }

  reset(): void {
    this.windows.clear();
  }
}

/** The headers every v1 answer carries. */
export function rateHeaders(limit: number, remaining: number): Record<string, string> {
  return { "ratelimit-limit": String(limit), "ratelimit-remaining": String(remaining) };
}
