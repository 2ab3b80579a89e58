// The screenshots of packages/cli/README.md: a store with a live engine running orders (some
// fail and are rolled back), `fate ui` on it, and Debian's chromium taking the overview and a
// failed transaction's page. Run `npm run build` first; writes packages/cli/docs/*.png (the
// committed ones were then shrunk with Debian's `pngquant 64`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUi } from '@fate/cli';
import { Fate, openStore } from '@fate/core';
import { chromium } from 'playwright-core';

const out = new URL('../packages/cli/docs/', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'fate-ui-shots-'));
const url = `sqlite:${join(dir, 'shop.db')}`;
const env = { slow: true };

class ReserveStock {
  type = 'reserve-stock';
  constructor(s) {
    this.s = s;
  }
  isReady = () => 0;
  call = () => new ChargeCard(this.s);
  undo() {
    if (this.s.order % 10 === 3) throw new Error(`stock service timed out releasing ${this.s.sku}`);
  }
  state = () => this.s;
}
class ChargeCard {
  type = 'charge-card';
  constructor(s) {
    this.s = s;
  }
  isReady = (_id, e) => (e.slow && this.s.order % 4 === 0 ? 200 : 0);
  call() {
    if (this.s.order % 5 === 3) {
      throw new Error(`card declined for order ${this.s.order}`, {
        cause: Object.assign(new Error('issuer answered 05: do not honor'), {
          code: 'PSP_DECLINED',
        }),
      });
    }
    return new Ship(this.s);
  }
  undo() {}
  state = () => this.s;
}
class Ship {
  type = 'ship';
  constructor(s) {
    this.s = s;
  }
  isReady = () => 0;
  call = () => undefined;
  undo() {}
  state = () => this.s;
  returnValue = () => ({ tracking: `1Z${this.s.order}` });
}
const steps = [
  { type: 'reserve-stock', fromState: (s) => new ReserveStock(s) },
  { type: 'charge-card', fromState: (s) => new ChargeCard(s) },
  { type: 'ship', fromState: (s) => new Ship(s) },
];

const engineStore = await openStore(url, { instanceId: 'shop-engine-1' });
const engine = new Fate({ store: engineStore, env, steps, workers: 8 });
await engine.start();
const seeded = [];
for (let order = 1000; order < 1080; order++) {
  const op = order % 3 === 0 ? 'refund' : 'checkout';
  seeded.push(
    await engine.seed(new ReserveStock({ order, sku: `sku-${order % 50}` }), { opName: op }),
  );
}
const store = await openStore(url, { create: false });
const token = 'screenshot-token-0123456789';
const ui = await startUi({
  store,
  storeUrl: url,
  port: 0,
  token,
  allowActions: true,
  refreshMs: 1000,
  log: () => {},
});
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
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
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  await page.goto(`${ui.url}/login`);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  // some finish while the page watches: throughput shows
  await new Promise((r) => setTimeout(r, 3_000));
  env.slow = false;
  await new Promise((r) => setTimeout(r, 2_500));
  await page.screenshot({ path: new URL('ui-overview.png', out).pathname, fullPage: false });
  const failed = (await store.listPage({ statuses: ['FAILED'], limit: 20 })).rows;
  let shown;
  for (const row of failed) {
    const view = await store.read(row.id);
    if (view.info.error?.undoErrors?.length) shown = row.id;
  }
  await page.goto(`${ui.url}/tx/${shown ?? failed[0].id}`);
  await page.screenshot({ path: new URL('ui-failed.png', out).pathname, fullPage: true });
  console.log(
    'wrote',
    new URL('ui-overview.png', out).pathname,
    new URL('ui-failed.png', out).pathname,
  );
} finally {
  await browser.close();
  await ui.close();
  await engine.shutdown(5_000);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
