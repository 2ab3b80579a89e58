/// <reference lib="dom" />
// (code passed to page.evaluate runs in the browser)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoreFixture } from '@fate/conformance';
import { type FateId, Status } from '@fate/core';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, stopServices } from '../cli-harness.js';
import {
  type Browser,
  dialogsOf,
  keptWhilePressed,
  launchBrowser,
  postFrom,
  WAIT_MS,
  waitForText,
} from './browser.js';
import { Boom, Gate, type Rig, startRig, TOKEN } from './ui-fixture.js';

// The console in a real browser (Debian's chromium through playwright-core), against real
// stores with a live engine. Every wait is bounded by WAIT_MS.

const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>"'&`;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stopServices();
});

async function logIn(page: Page, base: string, token = TOKEN): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
}

describe.each(BACKENDS)('fate ui in chromium on $name', (backend) => {
  let fixture: StoreFixture & { readonly url: string };
  let rig: Rig;
  let page: Page;

  beforeEach(async () => {
    fixture = await backend.fixture();
    rig = await startRig(fixture);
    await browser.context.clearCookies();
    page = await browser.page();
  });
  afterEach(async () => {
    await page?.close();
    await rig?.stop();
    await fixture?.destroy();
  });

  it('the overview updates as transactions finish, without reloading the page', async () => {
    rig.env.open = false;
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => rig.engine.seed(new Gate({ n: i }), { opName: 'gated' })),
    );
    await logIn(page, rig.ui.url);
    expect(new URL(page.url()).pathname).toBe('/');
    await waitForText(page, '[data-count=total]', '6');
    expect(await page.textContent('[data-status=SUCCESSFUL]')).toBe('0');
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    rig.env.open = true;
    await waitForText(page, '[data-status=SUCCESSFUL]', '6');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    // the engine shows in the engines' table as live, with its group
    expect(await page.textContent('main')).toContain(rig.engine.instanceId);
  });

  it('lists with filters and pages through every transaction once', async () => {
    const seeded = await Promise.all([
      ...Array.from({ length: 30 }, () => rig.engine.seed(new Gate(), { opName: 'alpha' })),
      ...Array.from({ length: 5 }, (_, i) =>
        rig.engine.seed(new Boom(`beta ${i} failed`), { opName: 'beta' }),
      ),
    ]);
    await Promise.all(
      seeded.map((s) => rig.engine.waitForCompletion(s.id, { timeoutMs: WAIT_MS })),
    );
    await logIn(page, rig.ui.url);
    await page.goto(`${rig.ui.url}/tx?limit=25`);
    const ids = () =>
      page.$$eval('tr[data-id]', (rows) => rows.map((r) => r.getAttribute('data-id') as string));
    const first = await ids();
    expect(first).toHaveLength(25);
    // a refresh never swaps the list while a pointer is pressed (it would lose the click)
    expect(await keptWhilePressed(page, 'a[rel=next]')).toBe(true);
    await Promise.all([page.waitForNavigation(), page.click('a[rel=next]')]);
    const second = await ids();
    expect(second).toHaveLength(10);
    expect(await page.textContent('.paging')).toContain('last page');
    const all = [...first, ...second];
    expect(all).toEqual([...all].sort());
    expect(new Set(all)).toEqual(new Set(seeded.map((s) => s.id)));

    await page.goto(`${rig.ui.url}/tx`);
    await page.check('input[name=status][value=FAILED]');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    const failed = await page.$$eval('tr[data-id] .status', (cells) =>
      cells.map((c) => c.textContent),
    );
    expect(failed).toEqual(Array(5).fill('FAILED'));

    await page.goto(`${rig.ui.url}/tx?op=alpha&limit=100`);
    expect(await ids()).toHaveLength(30);
    expect(await page.textContent('.paging')).toContain('last page');
  });

  it("a failed transaction's page shows its error; markup in a step state and an error shows as text and no script runs", async () => {
    const failed = await rig.engine.seed(new Boom(`card declined ${XSS}`), { opName: 'order' });
    expect((await rig.engine.waitForCompletion(failed.id, { timeoutMs: WAIT_MS })).status).toBe(
      Status.FAILED,
    );
    rig.env.open = false;
    const parked = await rig.engine.seed(new Gate({ note: XSS }), { opName: XSS });
    await logIn(page, rig.ui.url);

    await page.goto(`${rig.ui.url}/tx/${failed.id}`);
    expect(await page.textContent('.error .text')).toBe(`card declined ${XSS}`);
    expect(await page.textContent('.fields')).toContain('FAILED');

    await page.goto(`${rig.ui.url}/tx/${parked.id}`);
    expect(await page.textContent('code.state')).toBe(JSON.stringify({ note: XSS }));
    await page.goto(`${rig.ui.url}/tx`);
    expect(await page.textContent(`tr[data-id="${parked.id}"]`)).toContain(XSS);
    await page.goto(`${rig.ui.url}/`);
    await page.waitForFunction(() => document.body.dataset.updated !== undefined, null, {
      timeout: WAIT_MS,
    });
    expect(await page.textContent('main')).toContain(XSS);

    expect(
      await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
    ).toBeUndefined();
    expect(await page.$$eval('main img, main script', (els) => els.length)).toBe(0);
    expect(dialogsOf(page)).toEqual([]);
  });

  it('cancel, fail and delete work with the token, as the CLI rules them; without the token they are refused', async () => {
    // NEW transactions: no engine runs them, so nothing moves them but the console
    const [toCancel, toFail] = await Promise.all([
      rig.store.create().then((id) => ({ id })),
      rig.store.create().then((id) => ({ id })),
    ]);
    // without a session: sent to log in, and a POST is refused
    await page.goto(`${rig.ui.url}/tx/${toCancel.id}`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect((await postFrom(page, `/tx/${toCancel.id}/cancel`, { csrf: 'x' })).status).toBe(401);
    await logIn(page, rig.ui.url, 'not-the-token-0123456789');
    expect(await page.textContent('.notice.error')).toBe('wrong token');

    await logIn(page, rig.ui.url);
    const act = async (id: FateId, action: string) => {
      await page.goto(`${rig.ui.url}/tx/${id}`);
      await Promise.all([page.waitForNavigation(), page.click(`a[href="/tx/${id}/${action}"]`)]);
      await Promise.all([page.waitForNavigation(), page.click('button.danger')]);
      return (await page.textContent('.notice')) ?? '';
    };
    expect(await act(toCancel.id, 'cancel')).toContain(`cancelled ${toCancel.id}`);
    expect((await rig.store.read(toCancel.id)).status).toBe(Status.FAILED);
    expect(await act(toFail.id, 'fail')).toContain(`${toFail.id} is FAILED_IN_PROGRESS`);
    await rig.engine.waitForCompletion(toFail.id, { timeoutMs: WAIT_MS });
    expect((await rig.store.read(toFail.id)).status).toBe(Status.FAILED);
    // the CLI's rules and errors: a FAILED one cannot be cancelled
    const refused = await act(toCancel.id, 'cancel');
    expect(refused).toContain('FATE_ILLEGAL_STATUS');
    expect(await act(toCancel.id, 'delete')).toContain(`deleted ${toCancel.id}`);
    expect((await rig.store.read(toCancel.id)).status).toBe(Status.UNKNOWN);
    expect(rig.logs.some((l) => l.startsWith(`cancel ${toCancel.id}: cancelled`))).toBe(true);
    // after logging out, refused again
    await Promise.all([page.waitForNavigation(), page.click('form[action="/logout"] button')]);
    expect((await postFrom(page, `/tx/${toFail.id}/delete`, { csrf: 'x' })).status).toBe(401);
    expect((await rig.store.read(toFail.id)).status).toBe(Status.FAILED);
  });
});

describe('fate ui in chromium: refusals', () => {
  const sqlite = BACKENDS[0] as (typeof BACKENDS)[number];
  let fixture: StoreFixture & { readonly url: string };
  let rig: Rig;
  let page: Page;
  let attacker: Server | undefined;

  beforeEach(async () => {
    fixture = await sqlite.fixture();
    rig = await startRig(fixture);
    await browser.context.clearCookies();
    page = await browser.page();
  });
  afterEach(async () => {
    attacker?.close();
    attacker = undefined;
    await page?.close();
    await rig?.stop();
    await fixture?.destroy();
  });

  it('a cross-origin POST is refused, even from a logged-in browser with a valid CSRF token', async () => {
    const id = await rig.store.create();
    await logIn(page, rig.ui.url);
    await page.goto(`${rig.ui.url}/tx/${id}/cancel`);
    const csrf = await page.getAttribute('input[name=csrf]', 'value');
    // another origin (same site: another port of 127.0.0.1, so the SameSite cookie is sent)
    const form = `<form id="f" method="post" action="${rig.ui.url}/tx/${id}/cancel"><input name="csrf" value="${csrf}"></form><script>document.getElementById('f').submit()</script>`;
    attacker = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(form);
    });
    await new Promise<void>((r) => attacker?.listen(0, '127.0.0.1', r));
    const port = (attacker.address() as AddressInfo).port;
    const answer = page.waitForResponse(
      (r) => r.url().endsWith(`/tx/${id}/cancel`) && r.request().method() === 'POST',
    );
    await page.goto(`http://127.0.0.1:${port}/`);
    const res = await answer;
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('cross-origin request refused');
    expect((await rig.store.read(id)).status).toBe(Status.NEW);
    expect(rig.logs.some((l) => l.startsWith('refused a cross-origin POST'))).toBe(true);
  });

  it('a read-only console offers no actions and refuses them', async () => {
    const readOnly = await rig.console();
    const { id } = await rig.engine.seed(new Gate(), { opName: 'x' });
    await rig.engine.waitForCompletion(id, { timeoutMs: WAIT_MS });
    await page.goto(`${readOnly.url}/tx/${id}`);
    expect(await page.textContent('header')).toContain('read-only');
    expect(await page.$$('section.actions')).toHaveLength(0);
    expect((await postFrom(page, `/tx/${id}/delete`, { csrf: 'x' })).status).toBe(403);
    expect((await rig.store.read(id)).status).toBe(Status.SUCCESSFUL);
  });
});
