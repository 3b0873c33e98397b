/**
 * One autocannon run against one server, with the server's own CPU time read from /proc before and after,
 * and latencies recorded at full resolution (autocannon's histogram keeps whole milliseconds).
 */
import autocannon, { type Request } from "autocannon";
import { cpuSeconds } from "./proc.ts";

export interface Sample {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time per request, in µs. */
  cpuUs: number;
  non2xx: number;
  errors: number;
  bytesPerResponse: number;
  statusCodes: Record<string, number>;
}

export interface LoadOptions {
  origin: string;
  pid: number;
  requests: Request[];
  connections: number;
  /** Seconds, or... */
  duration?: number;
  /** ...a number of requests. */
  amount?: number;
  /** Skip collecting latencies (the soak's million requests). */
  noLatencies?: boolean;
  onTick?: (done: number) => void;
}

export function percentile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

export function median(values: number[]): number {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

export function runLoad(opts: LoadOptions): Promise<Sample> {
  return new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16);
    let n = 0;
    let bytes = 0;
    let responses = 0;
    const cpu0 = cpuSeconds(opts.pid);
    const t0 = performance.now();
    const instance = autocannon(
      {
        url: opts.origin,
        connections: opts.connections,
        ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? 5 }),
        timeout: 30,
        requests: opts.requests,
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const seconds = (performance.now() - t0) / 1000;
        const cpu = cpuSeconds(opts.pid) - cpu0;
        const sorted = latencies.subarray(0, n).sort();
        const statusCodes: Record<string, number> = {};
        for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
        resolve({
          requests: responses,
          seconds,
          rps: responses / seconds,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          cpuUs: responses > 0 ? (cpu / responses) * 1e6 : Number.NaN,
          non2xx: result.non2xx,
          errors: result.errors,
          bytesPerResponse: responses > 0 ? bytes / responses : 0,
          statusCodes,
        });
      },
    );
    instance.on("response", (_client: unknown, _status: number, resBytes: number, responseTime: number) => {
      responses++;
      bytes += resBytes;
      if (opts.noLatencies) return;
      if (n === latencies.length) {
        const grown = new Float64Array(n * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = responseTime;
    });
    if (opts.onTick) {
      const onTick = opts.onTick;
      instance.on("tick", () => onTick(responses));
    }
  });
}
