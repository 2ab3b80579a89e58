/// <reference lib="dom" />
// (code passed to page.evaluate runs in the browser)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

// The console's browser tests drive Debian's chromium (`.ci/run` installs it): no browser is
// downloaded. One profile per test file, in a fresh directory; its cookies are cleared
// between cases.

export const CHROMIUM = '/usr/bin/chromium';

/** Every wait of a case on the browser: the cases bound themselves with it. */
export const WAIT_MS = 10_000;

export interface Browser {
  readonly context: BrowserContext;
  /** A new tab that records script errors and dialogs (an XSS would open one). */
  page(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'fate-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  return {
    context,
    async page() {
      const page = await context.newPage();
      page.on('dialog', (d) => {
        (page as Page & { dialogs?: string[] }).dialogs ??= [];
        (page as Page & { dialogs?: string[] }).dialogs?.push(d.message());
        void d.dismiss();
      });
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Dialogs a page opened (alert, confirm): none is expected of the console. */
export const dialogsOf = (page: Page): readonly string[] =>
  (page as Page & { dialogs?: string[] }).dialogs ?? [];

/** Waits (bounded) until the text of `selector` is `expected`. */
export async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await page.waitForFunction(
    ([sel, want]) => document.querySelector(sel as string)?.textContent?.trim() === want,
    [selector, expected],
    { timeout: WAIT_MS },
  );
}

/**
 * Presses a pointer on `selector` (in the live part), marks the element under it, waits two
 * refreshes, and answers whether the marked element is still there; then releases it and
 * waits until a refresh replaced it (refreshes go on). Pressed first, marked after: a
 * refresh between marking and pressing would replace the element rightly (a clean-clone CI
 * run of 2026-12-04, at the tests' 250 ms refresh under load).
 */
export async function keptWhilePressed(page: Page, selector: string): Promise<boolean> {
  await page.dispatchEvent(selector, 'pointerdown');
  await page.$eval(selector, (e) => e.setAttribute('data-old', ''));
  const at = await page.evaluate(() => Number(document.body.dataset.refreshes ?? 0));
  await page.waitForFunction((n) => Number(document.body.dataset.refreshes) >= n + 2, at, {
    timeout: WAIT_MS,
  });
  const kept = (await page.$(`${selector}[data-old]`)) !== null;
  await page.dispatchEvent(selector, 'pointerup');
  await page.waitForSelector(`${selector}:not([data-old])`, { timeout: WAIT_MS });
  return kept;
}

/** What a same-origin form POST from the page answers (no navigation). */
export const postFrom = (page: Page, path: string, fields: Record<string, string>) =>
  page.evaluate(
    async ([p, f]) => {
      const res = await fetch(p as string, {
        method: 'POST',
        body: new URLSearchParams(f as Record<string, string>),
      });
      return { status: res.status, text: await res.text() };
    },
    [path, fields] as const,
  );
