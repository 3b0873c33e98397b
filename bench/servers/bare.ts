/**
 * The ceiling: a bare node:http server that answers every request with a fixed body and does nothing else
 * (no routing beyond one Map lookup, no parsing, no validation). It replays, byte for byte, the bodies the
 * simulator gave for the benchmark's endpoints (a JSON file of `"METHOD /path?query"` to `{ type, body }`,
 * passed as the second argument), so that "the same bytes on the wire" is the only thing both do alike.
 * Anything else gets the fallback body (the `auth/me` answer). Usage: bare.ts PORT [BODIES.json]
 */
import { readFileSync } from "node:fs";
import http from "node:http";

interface Canned {
  type: string;
  body: string;
}

const port = Number(process.argv[2] ?? "0");
const file = process.argv[3];
const canned: Record<string, Canned> = file ? JSON.parse(readFileSync(file, "utf8")) : {};
const fallbackSource = Object.values(canned)[0] ?? { type: "application/json", body: '{"id":"bare"}' };

interface Prepared {
  head: Record<string, string | number>;
  body: Buffer;
}
const prepare = (c: Canned): Prepared => {
  const body = Buffer.from(c.body);
  return { head: { "content-type": c.type, "content-length": body.byteLength }, body };
};
const routes = new Map<string, Prepared>(Object.entries(canned).map(([k, v]) => [k, prepare(v)]));
const fallback = prepare(fallbackSource);

const server = http.createServer({ keepAlive: true, noDelay: true }, (req, res) => {
  const answer = routes.get(`${req.method} ${req.url}`) ?? fallback;
  // Drain any request body before answering, as every real server must.
  if (req.method === "GET" || req.method === "HEAD") {
    res.writeHead(200, answer.head);
    res.end(answer.body);
    return;
  }
  req.resume();
  req.once("end", () => {
    res.writeHead(200, answer.head);
    res.end(answer.body);
  });
});
server.listen(port, "127.0.0.1");
// Exit cleanly on SIGTERM, so that `--cpu-prof` can write its profile.
process.on("SIGTERM", () => process.exit(0));
