import { chmodSync, existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WakeupNotifier, wakeupPath } from '../src/sqlite-notify.js';
import { POLL_MS, SqliteWakeups } from '../src/sqlite-wakeups.js';
import { step, useSqlite } from './sqlite-harness.js';
import { counter, QUIET_MS, WAKE_MS } from './sqlite-wakeup-counter.js';

const t = useSqlite();

describe('sqlite wake-ups: the wake-up file', () => {
  it('is made again when deleted, and still wakes', async () => {
    const store = await t.store();
    const woken = counter();
    await store.onWakeup(woken.listener);
    const file = wakeupPath(t.fixture.file);
    unlinkSync(file);
    // The watch saw the old file go: it watches a new one and wakes everyone once.
    await woken.until(0, WAKE_MS);
    expect(existsSync(file)).toBe(true);
    await sleep(50);
    const seen = woken.calls;
    const other = await t.store();
    await other.seed({ step, opName: 'op' });
    await woken.until(seen, WAKE_MS);
  });

  it('is polled when it cannot be watched, until the last listener leaves', async () => {
    await t.store(); // creates the database (and its wake-up file)
    const file = wakeupPath(t.fixture.file);
    const wakeups = new SqliteWakeups(file, () => {
      throw Object.assign(new Error('inotify watch limit reached'), { code: 'ENOSPC' });
    });
    try {
      const woken = counter();
      const unsubscribe = await wakeups.subscribe(woken.listener);
      expect(wakeups.polling).toBe(true);
      await sleep(2 * POLL_MS); // the poll's first look is its baseline
      new WakeupNotifier(file, t.fixture.file).notify();
      await woken.until(0, WAKE_MS);
      await unsubscribe();
      expect(wakeups.polling).toBe(false);
    } finally {
      await wakeups.close();
    }
  });

  it('is written at once, then at most once more per millisecond for a burst', async () => {
    await t.store();
    const file = wakeupPath(t.fixture.file);
    const written = () => readFileSync(file)[0];
    const notifier = new WakeupNotifier(file, t.fixture.file);
    notifier.notify();
    expect(written()).toBe(1); // the first at once
    notifier.notify();
    notifier.notify();
    expect(written()).toBe(1); // the rest of the burst waits for the window to end
    await sleep(50);
    expect(written()).toBe(2); // … and is written then, once: the burst's last seed is seen
    await sleep(50);
    notifier.notify();
    notifier.notify();
    notifier.flush(); // closing writes what is pending
    expect(written()).toBe(4);
    expect(readFileSync(file)).toHaveLength(1); // the file never grows
  });

  it('wakes no one after the store closed', async () => {
    const store = await t.store();
    const woken = counter();
    await store.onWakeup(woken.listener);
    await store.close();
    const other = await t.store();
    await other.seed({ step, opName: 'op' });
    await sleep(QUIET_MS);
    expect(woken.calls).toBe(0);
  });

  it('has the database file’s permissions, and is not made beside a file that is no database', async () => {
    await (await t.store()).close();
    const file = wakeupPath(t.fixture.file);
    unlinkSync(file);
    chmodSync(t.fixture.file, 0o660);
    await t.store();
    expect(statSync(file).mode & 0o777).toBe(0o660);
    const garbage = join(t.fixture.dir, 'garbage.db');
    writeFileSync(garbage, 'not a database, not even close. '.repeat(100));
    await expect(t.backend(`sqlite:${garbage}`)).rejects.toMatchObject({
      code: 'FATE_STORE_CONFIG',
    });
    expect(existsSync(wakeupPath(garbage))).toBe(false);
  });
});
