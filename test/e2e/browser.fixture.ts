/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser): installed by
 * scripts/install-system-deps.sh. Suites call `browserSkipReason()` and skip with that reason
 * when the binary is missing, so a missing browser never passes silently.
 */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  return existsSync(CHROMIUM_PATH) ? undefined : `${CHROMIUM_PATH} is missing (run scripts/install-system-deps.sh as root)`;
}

export interface TestBrowser {
  /** A fresh browser context (own cookies), optionally with an Accept-Language. */
  newContext(options?: { readonly locale?: string }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Launches headless Chromium; playwright gives every launch a fresh temporary user-data dir. */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  return {
    newContext: (options = {}) => browser.newContext(options.locale === undefined ? {} : { locale: options.locale }),
    close: () => browser.close(),
  };
}
