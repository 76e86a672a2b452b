import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Launches headless Chromium through playwright-core (Playwright's own browser download cannot run
 * here). The flags keep Chromium off the network: this machine's closed network refuses its
 * background connections, and as root it needs --no-sandbox.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
