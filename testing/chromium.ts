/**
 * Debian's Chromium for the browser tests (driven by playwright-core), or a visible reason why they are
 * skipped where it is missing (`.ci/run` installs it).
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const SKIP_NOTE = `SKIPPED: no Chromium at ${CHROMIUM}; install it with: apt-get install -y chromium`;

/** Headless Chromium with `args` besides --no-sandbox, or null (and the skip note printed) without it. */
export async function launchChromium(args: readonly string[] = []): Promise<Browser | null> {
  if (!HAVE_CHROMIUM) {
    console.warn(SKIP_NOTE);
    return null;
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", ...args] });
}
