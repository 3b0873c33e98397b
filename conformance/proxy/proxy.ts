/**
 * The validating proxy as a fetch handler: every request goes to the upstream as it came (method, path,
 * query, headers, body), its answer comes back as it streams, and the exchange is judged once the answer
 * has ended (judge.ts). With `errors`, an answer is held until it is judged, and one that breaks a rule
 * of the response is replaced by a 502 in the error envelope naming the rule (Prism's `--errors`). The
 * proxy's own pages are under `/__proxy/`: the HTML report, `report` (JSON) and `report.xml` (JUnit).
 * An upstream that cannot be reached is a 502 in the envelope, and a report entry.
 */
import { type Finding, Judge, type Observed } from "./judge.ts";
import { junitOf } from "./junit.ts";
import { renderProxyPage } from "./page.ts";

export interface ProxyOptions {
  upstream: string;
  /** Answer an exchange that breaks a rule with a 502 naming it, instead of passing the answer on. */
  errors?: boolean;
  /** Whose findings count (the exit status, and what `errors` turns into 502): default both sides. */
  failOn?: FailOn;
  /** Told every finding as it is made (the terminal log). */
  onFinding?: (f: Finding) => void;
  /** Told when an exchange could not be judged (a fault of the proxy, not of the traffic). */
  onError?: (error: unknown) => void;
  /** How the upstream is reached (global fetch by default). */
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

/** Response bodies are judged up to this size; a longer one (a large download) by status and headers. */
const JUDGED_BODY_BYTES = 1024 * 1024;

/** Headers that belong to one connection, not to the exchange (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  // The proxy reads the answers it judges: it asks for them uncompressed.
  "accept-encoding",
]);

export interface Proxy {
  fetch(request: Request): Promise<Response>;
  readonly judge: Judge;
}

export function createProxy(options: ProxyOptions): Proxy {
  const upstream = options.upstream.replace(/\/$/, "");
  const send = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const judge = new Judge(upstream, now());
  // Judging never stands in the way of forwarding: an exchange the judge cannot read is passed on as is.
  const record = (o: Observed): Finding[] => {
    let found: Finding[];
    try {
      found = judge.judge(o);
    } catch (e) {
      options.onError?.(e);
      return [];
    }
    for (const f of found) options.onFinding?.(f);
    return found;
  };

  async function forward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const started = performance.now();
    const at = now();
    const body = request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer();
    const requestHeaders: Record<string, string> = {};
    const headers = new Headers();
    request.headers.forEach((value, name) => {
      requestHeaders[name] = value;
      if (!HOP_BY_HOP.has(name)) headers.set(name, value);
    });
    // Answers come uncompressed, to be read (fetch would otherwise ask for gzip and decode it itself).
    headers.set("accept-encoding", "identity");
    const requestBody = body && body.byteLength > 0 ? new TextDecoder().decode(body) : null;
    let answer: Response;
    try {
      answer = await send(`${upstream}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        redirect: "manual",
        ...(body && body.byteLength > 0 ? { body } : {}),
      });
    } catch (e) {
      return unreachable(url.pathname, e, judge, now());
    }
    const responseHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    const observed = (responseBody: string | null): Observed => ({
      method: request.method,
      url: request.url,
      requestHeaders,
      requestBody,
      status: answer.status,
      responseHeaders,
      responseBody,
      ms: performance.now() - started,
      at,
    });
    const outHeaders = new Headers(answer.headers);
    // The body passed on is the one fetch read: decoded, whatever the upstream's framing was.
    for (const h of ["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"])
      outHeaders.delete(h);
    if (options.errors || answer.body === null) {
      const bytes = answer.body === null ? new Uint8Array() : new Uint8Array(await answer.arrayBuffer());
      const text = bytes.byteLength <= JUDGED_BODY_BYTES ? new TextDecoder().decode(bytes) : null;
      const found = record(observed(text));
      const broken = found.filter((f) => counts(options.failOn ?? "any", f));
      if (options.errors && broken.length > 0) return violationAnswer(url.pathname, broken);
      return new Response(bytes.byteLength > 0 ? bytes : null, {
        status: answer.status,
        headers: outHeaders,
      });
    }
    // Passed on as it streams (an NDJSON preview, a download); judged when it ends.
    const chunks: Uint8Array[] = [];
    let kept = 0;
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (kept <= JUDGED_BODY_BYTES) chunks.push(chunk);
        kept += chunk.byteLength;
        controller.enqueue(chunk);
      },
      flush() {
        record(observed(kept <= JUDGED_BODY_BYTES ? Buffer.concat(chunks, kept).toString("utf8") : null));
      },
    });
    return new Response(answer.body.pipeThrough(tap), { status: answer.status, headers: outHeaders });
  }

  return {
    judge,
    async fetch(request: Request): Promise<Response> {
      const path = new URL(request.url).pathname;
      if (path === "/__proxy" || path.startsWith("/__proxy/")) return own(path, judge);
      return forward(request);
    },
  };
}

function own(path: string, judge: Judge): Response {
  const noStore = { "cache-control": "no-store" };
  if (path === "/__proxy/report") return Response.json(judge.report, { headers: noStore });
  if (path === "/__proxy/report.xml")
    return new Response(junitOf(judge.report), {
      headers: { "content-type": "application/xml", ...noStore },
    });
  if (path === "/__proxy" || path === "/__proxy/")
    return new Response(renderProxyPage(judge.report), {
      headers: { "content-type": "text/html; charset=utf-8", ...noStore },
    });
  return envelope(404, "Not Found", path, {
    message: "The proxy serves /__proxy/, /__proxy/report and /__proxy/report.xml",
  });
}

function envelope(
  status: number,
  statusMessage: string,
  url: string,
  extra: Record<string, unknown> = {},
): Response {
  return Response.json(
    { statusCode: status, statusMessage, message: statusMessage, url, error: true, ...extra },
    { status },
  );
}

function unreachable(path: string, e: unknown, judge: Judge, at: number): Response {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (e as Error).message;
  judge.unreachable(path, reason, at);
  return envelope(502, "Bad Gateway", path, {
    message: `The proxy could not reach its upstream: ${reason}`,
    data: { code: "UPSTREAM_UNREACHABLE", upstream: judge.report.upstream },
  });
}

/** `--fail-on`: the upstream's findings, the client's, or any. */
export type FailOn = "upstream" | "client" | "any";

/** Whether a finding counts under `failOn`. */
export function counts(failOn: FailOn, f: Finding): boolean {
  return failOn === "any" || f.side === failOn;
}

function violationAnswer(path: string, broken: Finding[]): Response {
  const whose = broken[0]?.side === "client" ? "The request" : "The upstream's answer";
  return envelope(502, "Bad Gateway", path, {
    message: `${whose} breaks the contract: ${broken[0]?.ruleId ?? broken[0]?.check}: ${broken[0]?.message}`,
    data: {
      code: "CONTRACT_VIOLATION",
      violations: broken.map((f) => ({ ruleId: f.ruleId, check: f.check, side: f.side, message: f.message })),
    },
  });
}
