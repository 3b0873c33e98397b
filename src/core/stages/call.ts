/**
 * One API request on its way through the stages (src/core/stages/index.ts lists them in order): what each
 * stage found out, for the stages after it. A stage answers by returning an Outcome (the rest are skipped)
 * or by throwing an ApiError (rendered as the envelope, with the headers gathered so far); returning
 * nothing passes the request on.
 */
import type { Operation } from "../../contract/operations.ts";
import type { RecordingHeaders } from "../../persistence/recorder.ts";
import type { Caller } from "../auth.ts";
import type { BodyResult } from "../body.ts";
import { ApiError } from "../errors.ts";
import type { Outcome, SimRequest } from "../exchange.ts";
import { renderError } from "../render.ts";
import type { RequestContext, RouteSpec } from "../route.ts";

/** What the journal and kept answers learn from a request, whichever stage answered it. */
export interface Who {
  userId: string | null;
  /** It changed nothing: what the core derived from the state stays. */
  pure: boolean;
  /** A change of API keys only: kept answers stay (`RouteSpec.keysOnly`). */
  keysOnly: boolean;
  /** The request's body as read, for the journal. */
  body: string | null;
}

const NO_BODY: BodyResult = Object.freeze({ present: false });

export class ApiCall {
  /** Headers every answer carries from the stage that set them on (cache control, rate limits). */
  readonly headers: Record<string, string> = {};
  /** Set by `route`. */
  op!: Operation;
  params: Record<string, string> = {};
  prefix = "";
  /** Set by `authenticate`: the key's owner, or null for a public operation. */
  caller: Caller | null = null;
  /** Set by `authorize`: the resource's route, and the context its handler is handed. */
  spec!: RouteSpec;
  ctx!: RequestContext;
  /** Set by `authorize` when changes are recorded: the headers the request was served with. */
  recorded: RecordingHeaders | null = null;
  /** Set by `body`: the body as read, for the change log. */
  raw: BodyResult = NO_BODY;

  constructor(
    readonly request: SimRequest,
    readonly url: URL,
    readonly path: string,
    readonly who: Who,
  ) {}
}

export interface Stage {
  readonly name: string;
  /** Answers, or passes the call on (undefined). A stage that need not wait answers synchronously. */
  run(call: ApiCall): Outcome | undefined | Promise<Outcome | undefined>;
}

/** Runs `stages` in order until one answers; an ApiError thrown by any is the answer, in the envelope. */
export async function runStages(stages: readonly Stage[], call: ApiCall): Promise<Outcome> {
  try {
    for (const stage of stages) {
      const ran = stage.run(call);
      // Most stages answer at once: awaiting only a promise keeps a read free of needless turns.
      const answer = ran instanceof Promise ? await ran : ran;
      if (answer !== undefined) return answer;
    }
  } catch (error) {
    if (error instanceof ApiError) return renderError(error, call.path, call.headers);
    throw error;
  }
  throw new Error(`no stage answered ${call.request.method} ${call.path}`);
}
