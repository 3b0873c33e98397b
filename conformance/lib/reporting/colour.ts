/**
 * Colour in the terminal report, and only in a terminal: on when standard output is one, off under
 * NO_COLOR, on under FORCE_COLOR (unless it is `0`), the conventions of no-color.org and force-color.org.
 * CI logs and the report files get plain text.
 */
export interface Paint {
  ok(text: string): string;
  bad(text: string): string;
  skip(text: string): string;
}

export function paint(
  stream: { isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): Paint {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const on = forced || (env.NO_COLOR === undefined && stream.isTTY === true);
  const sgr = (open: number) => (text: string) => (on ? `\u001b[${open}m${text}\u001b[39m` : text);
  return { ok: sgr(32), bad: sgr(31), skip: sgr(33) };
}
