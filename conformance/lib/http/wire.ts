/**
 * Requests no HTTP client library will send (no Host, an unknown Expect, a broken request line, a head
 * larger than the server allows), written on a socket of their own, and the one answer read back.
 */
import net from "node:net";
import tls from "node:tls";

export interface WireAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** Sends `head` (and `body`) to the target's origin on a fresh connection; null when nothing parseable came back. */
export function sendRaw(
  baseUrl: string,
  head: string,
  body = "",
  timeoutMs = 10_000,
): Promise<WireAnswer | null> {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const socket =
    url.protocol === "https:"
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
      : net.connect(port, host);
  socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => {
    socket.write(Buffer.from(head + body, "latin1"));
  });
  return collect(socket, (data) => parseAnswer(data, false) !== null, timeoutMs).then(({ data }) =>
    parseAnswer(data),
  );
}

/**
 * What a socket sends until `enough` says it is complete, the peer closes or fails, or `timeoutMs` passes;
 * then the socket is destroyed. `closedByServer` tells the peer's close from ours.
 */
export function collect(
  socket: net.Socket,
  enough: (data: Buffer) => boolean,
  timeoutMs: number,
): Promise<{ data: Buffer; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let closedByServer = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), closedByServer });
    };
    const timer = setTimeout(finish, timeoutMs);
    const byPeer = (): void => {
      closedByServer = true;
      finish();
    };
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      if (enough(Buffer.concat(chunks))) finish();
    });
    socket.on("end", byPeer);
    socket.on("error", byPeer);
    socket.on("close", finish);
  });
}

/** The first response in `data`; with `closed` false, only when it is complete. */
function parseAnswer(data: Buffer, closed = true): WireAnswer | null {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const lines = data.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (!m) return null;
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  let rest = data.subarray(end + 4);
  const length = headers.get("content-length");
  if (length !== null) {
    if (rest.length < Number(length)) return closed ? answer(m[1], headers, rest) : null;
    rest = rest.subarray(0, Number(length));
  } else if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    const body: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = rest.indexOf("\r\n", at);
      if (eol < 0) return closed ? answer(m[1], headers, Buffer.concat(body)) : null;
      const size = Number.parseInt(rest.subarray(at, eol).toString("latin1"), 16);
      if (!Number.isFinite(size) || size === 0) break;
      body.push(rest.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    rest = Buffer.concat(body);
  } else if (!closed) {
    return null;
  }
  return answer(m[1], headers, rest);
}

function answer(status: string | undefined, headers: Headers, body: Buffer): WireAnswer {
  return { status: Number(status), headers, text: body.toString("utf8") };
}
