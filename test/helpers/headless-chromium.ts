import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); `npm test` installs it first (scripts/install-test-tools.sh). */
const chromiumPath = "/usr/bin/chromium";

/** A headless Chromium on a profile directory of its own. */
export interface HeadlessChromium {
  browser: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Starts Chromium headless on a fresh profile directory (Playwright passes
 * it as --user-data-dir); the directory is removed when the start fails.
 */
export async function startHeadlessChromium(): Promise<HeadlessChromium> {
  const profile = await mkdtemp(join(tmpdir(), "switchyard-chromium-"));
  const removeProfile = () => rm(profile, { recursive: true, force: true });
  let browser: BrowserContext;
  try {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  } catch (error) {
    await removeProfile();
    throw error;
  }
  return {
    browser,
    close: async () => {
      try {
        await browser.close();
      } finally {
        await removeProfile();
      }
    },
  };
}
