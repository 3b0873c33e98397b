/**
 * How `serve` takes its port and what it does once it answers: it listens before the world is made, and
 * settles (code cache, heap) after the first answer. src/cli/main.ts calls both.
 */
import type { ServerResponse } from "node:http";
import type { Handler, RunningServer, ServerOptions } from "../node/server.ts";
import type { CliOptions } from "./args.ts";
import { codeCacheOffered, saveCodeCache } from "./code-cache.ts";
import { tightenHeap } from "./memory.ts";

/** After listening: past the first requests a client sends as it starts (src/cli/memory.ts). */
const SETTLE_MS = 250;
const NO_REQUEST_SETTLE_MS = 5_000;

/**
 * The server listens before the world is made, once what the command was given has been read and checked:
 * a client that connects meanwhile (a test or a script waiting for the port) is answered as soon as the
 * world stands, rather than finding the port closed and trying again later. Requests wait for `serve`,
 * which hands them the simulator. A port that cannot be had ends the process here (exit 1).
 */
export async function listenFirst(
  startServer: typeof import("../node/server.ts").startServer,
  options: Pick<CliOptions, "host" | "port">,
  onError: NonNullable<ServerOptions["onError"]>,
): Promise<{ running: RunningServer; serve(handler: Handler): void }> {
  let serve: (handler: Handler) => void = () => {};
  // Once the world stands, requests go straight to it: waiting on `ready` was two promises and two turns of
  // the microtask queue for every request of the server's life.
  let served: Handler | null = null;
  const ready = new Promise<Handler>((resolve) => {
    serve = (handler) => {
      served = handler;
      resolve(handler);
    };
  });
  try {
    const running = await startServer(
      {
        handle: (request) =>
          served !== null ? served.handle(request) : ready.then((handler) => handler.handle(request)),
      },
      { port: options.port, host: options.host, onError },
    );
    return { running, serve };
  } catch (error) {
    process.stderr.write(`error: ${listenFailure(error, options)}\n`);
    process.exit(1);
  }
}

/**
 * Work that waits until the server answers: the heap tightened (src/cli/memory.ts) and, on a start without a
 * code cache, the code saved (src/cli/code-cache.ts). The code is saved a quarter second after listening, so
 * that a process stopped before any request still leaves it, and again once the first request has been
 * answered, so that the next start finds the request path compiled too. V8 refuses code kept under other
 * flags than its own, and tightenHeap sets one: once it has, nothing is saved any more.
 */
export function settleAfterStart(running: RunningServer): void {
  if (!codeCacheOffered()) {
    setTimeout(() => void tightenHeap(), SETTLE_MS).unref();
    return;
  }
  let settled = false;
  const settle = (): void => {
    if (settled) return;
    settled = true;
    saveCodeCache();
    void tightenHeap();
  };
  setTimeout(() => settled || saveCodeCache(), SETTLE_MS).unref();
  // A first start no request reaches tightens its heap all the same, without the request path's code.
  setTimeout(settle, NO_REQUEST_SETTLE_MS).unref();
  running.server.once("request", (_request, response: ServerResponse) =>
    response.once("close", () => setTimeout(settle, 50).unref()),
  );
}

function listenFailure(error: unknown, options: Pick<CliOptions, "host" | "port">): string {
  const code = (error as { code?: string } | null)?.code;
  const where = `${options.host}:${options.port}`;
  switch (code) {
    case "EADDRINUSE":
      return `port ${options.port} on ${options.host} is already in use. Pick another with --port N (or PORT=N), or --port 0 for any free port.`;
    case "EACCES":
      return `not allowed to listen on ${where}; ports below 1024 need privileges. Try --port ${4010}.`;
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot listen on host "${options.host}": no such local address. Try --host 127.0.0.1 or --host 0.0.0.0.`;
    default:
      return `could not listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
