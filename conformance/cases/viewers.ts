/**
 * The shape most read cases share: a request any viewer of an Audience may make, answered as its rule says
 * to those who can see the Audience and 404 to everyone else (unauthorized access reported as missing).
 */
import type { RuleId } from "../lib/description/rules.ts";
import type { CallSpec } from "../lib/http/http.ts";
import type { Role } from "../lib/http/target.ts";
import { type Answer, type Case, type CaseWorld, onAud, refused } from "./case.ts";
import { canView, relation } from "./cast.ts";

export interface ViewerRead {
  op: string;
  role: Role;
  handle: string;
  /** The rule a viewer's answer judges. */
  rule: RuleId;
  /** What a viewer gets, in a word or two of the case's ID (`read`, `listed`, `a proposal`). */
  seen: string;
  /** What a viewer must be answered. */
  answer: Answer[] | ((w: CaseWorld) => Answer[]);
  /** What everyone else is answered (404 unless said). */
  hidden?: Answer;
  /** The request besides the Audience's ID (a query, a body, headers). */
  more?: Omit<CallSpec, "op" | "as" | "params">;
}

export function viewerRead(v: ViewerRead): Case {
  const sees = canView(relation(v.role, v.handle));
  return {
    id: `${v.op} ${v.role} on ${v.handle}: ${sees ? v.seen : "404, hidden"}`,
    rule: sees ? v.rule : "access/hidden-as-404",
    op: v.op,
    as: v.role,
    request: onAud(v.handle, { ...v.more }),
    expect: (w) =>
      sees ? (typeof v.answer === "function" ? v.answer(w) : v.answer) : [v.hidden ?? refused(404)],
  };
}
