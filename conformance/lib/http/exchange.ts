/**
 * One request the kit sent and the answer it got, as every check and report reads it. In a module of its
 * own, below the client that makes them and the description that judges them, so that neither reaches the
 * other through it.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reportsDir } from "../reporting/paths.ts";

export interface OperationRef {
  operationId: string;
  method: string;
  path: string;
}

export class Exchange {
  attempts: Exchange[] = [];
  private parsed: { value: unknown } | null = null;
  readonly method: string;
  readonly url: string;
  readonly operation: OperationRef | null;
  /** Request headers with the key redacted. */
  readonly requestHeaders: Record<string, string>;
  readonly keyLabel: string | null;
  readonly requestBodyText: string | null;
  readonly status: number;
  readonly responseHeaders: Record<string, string>;
  readonly text: string;
  readonly ms: number;
  constructor(
    method: string,
    url: string,
    operation: OperationRef | null,
    requestHeaders: Record<string, string>,
    keyLabel: string | null,
    requestBodyText: string | null,
    status: number,
    responseHeaders: Record<string, string>,
    text: string,
    ms: number,
  ) {
    this.method = method;
    this.url = url;
    this.operation = operation;
    this.requestHeaders = requestHeaders;
    this.keyLabel = keyLabel;
    this.requestBodyText = requestBodyText;
    this.status = status;
    this.responseHeaders = responseHeaders;
    this.text = text;
    this.ms = ms;
  }

  get pathname(): string {
    return new URL(this.url).pathname;
  }

  get headers(): Headers {
    return new Headers(this.responseHeaders);
  }

  header(name: string): string | null {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }

  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  get json(): unknown {
    if (!this.parsed) {
      try {
        this.parsed = { value: this.text ? JSON.parse(this.text) : undefined };
      } catch {
        this.parsed = { value: undefined };
      }
    }
    return this.parsed.value;
  }

  /** `json` as a loose record, for reading fields in checks. */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field after schema checks
  get body(): any {
    return this.json;
  }

  /** Saves a body too long for a command line next to the reports, for the curl command to reference. */
  bodyFileName(): string {
    const text = this.requestBodyText ?? "";
    const name = `${createHash("sha1").update(text).digest("hex").slice(0, 16)}.body`;
    const dir = join(reportsDir(), "bodies");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  }
}
