/**
 * Routes built once from the operation table: a segment trie where a literal segment beats a parameter,
 * so `/formations/preview` wins over `/formations/{formationId}` as OpenAPI says concrete paths match first.
 */
import type { Method, Operation } from "../../contract/operations.ts";
import { KeptMap } from "./kept-map.ts";

interface Node {
  literal: Map<string, Node>;
  param: { name: string; node: Node } | null;
  ops: Map<Method, Operation>;
  /** The path prefix this template was reached through (`/api/v1`, `/v1`, `/api/acp`, ``). */
  prefix: string;
}

const newNode = (): Node => ({ literal: new Map(), param: null, ops: new Map(), prefix: "" });

/** Matches are shared by every request for the same method and path: read them, never change them. */
export type RouteMatch =
  | { kind: "found"; op: Operation; params: Readonly<Record<string, string>>; prefix: string }
  | { kind: "method-not-allowed"; allowed: readonly Method[]; prefix: string }
  | { kind: "not-found" };

export class Router {
  private readonly root = newNode();
  /**
   * Path, then method, to its match. A client asks for the same few paths again and again; splitting and
   * walking each was a twentieth of what an auth/me cost the core.
   */
  private readonly kept = new KeptMap<string, Map<string, RouteMatch>>(1024);

  constructor(ops: readonly Operation[]) {
    for (const op of ops) for (const prefix of op.prefixes) this.add(prefix, op);
  }

  private add(prefix: string, op: Operation): void {
    let node = this.root;
    for (const seg of `${prefix}${op.path}`.split("/").slice(1)) {
      const m = /^\{(.+)\}$/.exec(seg);
      if (m) {
        node.param ??= { name: m[1] as string, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literal.get(seg);
        if (!next) {
          next = newNode();
          node.literal.set(seg, next);
        }
        node = next;
      }
    }
    node.ops.set(op.method, op);
    node.prefix = prefix;
  }

  match(method: string, pathname: string): RouteMatch {
    const byMethod = this.kept.get(pathname) ?? this.kept.keep(pathname, new Map());
    const known = byMethod.get(method);
    if (known !== undefined) return known;
    const match = Object.freeze(this.matchNow(method, pathname));
    if (match.kind === "found") Object.freeze(match.params);
    if (match.kind === "method-not-allowed") Object.freeze(match.allowed);
    byMethod.set(method, match);
    return match;
  }

  private matchNow(method: string, pathname: string): RouteMatch {
    // A pathname starts with "/": its first piece is empty, and the walk starts after it.
    const segments = pathname.split("/");
    const params: Record<string, string> = {};
    const node = this.walk(this.root, segments, 1, params);
    if (!node) return { kind: "not-found" };
    const op = node.ops.get(method as Method) ?? (method === "HEAD" ? node.ops.get("GET") : undefined);
    if (op) return { kind: "found", op, params, prefix: node.prefix };
    return { kind: "method-not-allowed", allowed: [...node.ops.keys()], prefix: node.prefix };
  }

  private walk(node: Node, segs: string[], i: number, params: Record<string, string>): Node | null {
    if (i === segs.length) return node.ops.size > 0 ? node : null;
    const seg = segs[i] as string;
    const lit = node.literal.get(seg);
    if (lit) {
      const found = this.walk(lit, segs, i + 1, params);
      if (found) return found;
    }
    if (node.param) {
      const found = this.walk(node.param.node, segs, i + 1, params);
      if (found) {
        params[node.param.name] = safeDecode(seg);
        return found;
      }
    }
    return null;
  }
}

/** A malformed percent-escape is left as typed: the ID check then rejects it like any other bad ID. */
function safeDecode(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}
