/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser): installed by
 * scripts/install-system-deps.sh. Suites wait on `meet(CHROMIUM)` (test/requirements.ts): a
 * missing browser skips them with the reason, and fails them under CI=true.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
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

/** Where docs/login-ui.md's pictures live (docs/images/login/<name>.png). */
const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'docs', 'images', 'login');

/**
 * Saves the page as docs/images/login/<name>.png when TESSERA_DOC_SCREENSHOTS=1 (how the
 * pictures of docs/login-ui.md are made: `TESSERA_DOC_SCREENSHOTS=1 npx vitest run <browser
 * suites>`); otherwise does nothing, so ordinary runs never write into the tree. `name`: the
 * flow and step, lower-case with dashes (e.g. `totp-code`).
 */
export async function docScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.TESSERA_DOC_SCREENSHOTS !== '1') return;
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) throw new Error(`screenshot name ${JSON.stringify(name)}: lower-case words joined by dashes`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
