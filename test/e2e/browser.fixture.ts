/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser): installed by
 * scripts/install-system-deps.sh. Suites wait on `meet(CHROMIUM)` (test/requirements.ts): a
 * missing browser skips them with the reason, and fails them under CI=true.
 */
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM_PATH } from '../requirements.js';

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
