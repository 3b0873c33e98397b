/**
 * The proxy bench's baseline: the least a Node forwarder does (node:http on both sides, a kept-alive
 * agent, bytes piped through, nothing judged). What the validating proxy costs is stated beside it, as a
 * ratio measured in the same run: on a shared machine only the ratio is stable.
 *
 *   node bench/servers/forwarder.ts UPSTREAM PORT
 */
import http from "node:http";

const [upstream, port] = [new URL(process.argv[2] ?? "http://127.0.0.1:4010"), Number(process.argv[3] ?? 0)];
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const server = http.createServer({ keepAlive: true, noDelay: true }, (req, res) => {
  const out = http.request(
    {
      hostname: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: req.method,
      headers: { ...req.headers, host: upstream.host },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    },
  );
  out.on("error", () => res.destroy());
  req.pipe(out);
});
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(
    `forwarder: http://127.0.0.1:${typeof address === "object" && address ? address.port : port}\n`,
  );
});
