import { type ChildProcess, fork } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { newFateId, Status } from '@fate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { WakeupNotifier, wakeupPath } from '../src/sqlite-notify.js';
import { POLL_MS, SqliteWakeups } from '../src/sqlite-wakeups.js';
import { PACKAGE_DIR, step, useSqlite } from './sqlite-harness.js';

const t = useSqlite();

/** The bound on every wait for a wake-up: not a speed claim, only "it came, not a poll". */
const WAKE_MS = 1_000;
/** How long a write that must wake no one is watched for. */
const QUIET_MS = 300;

type Message = Record<string, unknown>;

/** A second process on the fixture's file (sqlite-wakeup-child.mjs), driven over IPC. */
class Child {
  readonly #process: ChildProcess;
  readonly #messages: Message[] = [];
  #arrived: () => void = () => undefined;

  constructor(file: string) {
    this.#process = fork(new URL('./sqlite-wakeup-child.mjs', import.meta.url).pathname, {
      cwd: PACKAGE_DIR,
      env: { ...process.env, FATE_FILE: file },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#process.on('message', (m: Message) => {
      this.#messages.push(m);
      this.#arrived();
    });
  }

  send(message: Message): void {
    this.#process.send(message);
  }

  /** The first message (since the start) that has `key`; fails after `ms`. */
  async next(key: string, ms: number): Promise<Message> {
    const deadline = performance.now() + ms;
    for (;;) {
      const found = this.#messages.find((m) => key in m);
      if (found) return found;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no "${key}" from the child within ${ms} ms`);
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#arrived = resolve;
        }),
        sleep(left),
      ]);
    }
  }

  count(key: string): number {
    return this.#messages.filter((m) => key in m).length;
  }

  stop(): void {
    if (this.#process.connected) this.#process.disconnect();
    this.#process.kill();
  }
}

/** Counts the calls of a listener; `until` waits (bounded) for the count to pass `n`. */
function counter() {
  const c = {
    calls: 0,
    listener: () => {
      c.calls++;
    },
    async until(n: number, ms: number): Promise<number> {
      const started = performance.now();
      while (c.calls <= n) {
        if (performance.now() - started > ms) throw new Error(`no wake-up within ${ms} ms`);
        await sleep(2);
      }
      return performance.now() - started;
    },
  };
  return c;
}

let children: Child[] = [];
afterEach(() => {
  for (const child of children) child.stop();
  children = [];
});

async function child(): Promise<Child> {
  const c = new Child(t.fixture.file);
  children.push(c);
  await c.next('ready', 20_000);
  return c;
}

describe('sqlite wake-ups between two processes', () => {
  it('a seed here wakes a subscriber in another process', async () => {
    const store = await t.store();
    const other = await child();
    other.send({ subscribe: true });
    await other.next('subscribed', 5_000);
    await sleep(QUIET_MS);
    expect(other.count('woken')).toBe(0); // nothing was written: nothing woke it
    const before = performance.now();
    await store.seed({ step, opName: 'op' });
    await other.next('woken', WAKE_MS);
    const ms = performance.now() - before;
    console.log(`seed here → wake-up there: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(WAKE_MS);
  });

  it('a batch seeded by another process wakes a subscriber here', async () => {
    const store = await t.store();
    const woken = counter();
    await store.onWakeup(woken.listener);
    const other = await child();
    other.send({ seed: 3 });
    const { seeded } = (await other.next('seeded', 5_000)) as { seeded: string[] };
    expect(seeded).toHaveLength(3);
    expect(await woken.until(0, WAKE_MS)).toBeLessThan(WAKE_MS);
  });
});

describe('sqlite wake-ups: which writes wake', () => {
  const mine = { lockId: 'me@1', uuid: 'u1' };
  const record = (status: Status) => ({ status, stack: '[]', info: '{}', op: 'op' });

  it('runnable work does (SUBMITTED, a release without deferral, a cleared holder); the rest does not', async () => {
    const watcher = await t.backend();
    const writer = await t.backend();
    const woken = counter();
    await watcher.subscribeWakeups(woken.listener);
    const quiet = async (what: string, write: () => Promise<unknown>) => {
      const seen = woken.calls;
      await write();
      await sleep(QUIET_MS);
      expect(woken.calls, what).toBe(seen);
    };
    const wakes = async (what: string, write: () => Promise<unknown>) => {
      const seen = woken.calls;
      await write();
      await woken.until(seen, WAKE_MS).catch(() => expect.fail(`${what} woke no one`));
      await sleep(20); // let this burst's wake-ups settle before the next case
    };
    const id = newFateId();
    const reserve = (r = mine) => writer.tryReserve(id, r);
    await quiet('a NEW insert', () => writer.insert(id, record(Status.NEW)));
    await reserve();
    const submit = { status: Status.SUBMITTED, release: { deferMs: 60_000 } };
    await quiet('a deferred release', () => writer.write(id, mine, submit));
    await reserve();
    await quiet('a step write', () => writer.write(id, mine, { stack: '[{"type":"s"}]' }));
    await wakes('a release without deferral', () =>
      writer.write(id, mine, { release: { deferMs: 0 } }),
    );
    const dead = { lockId: 'dead@1', uuid: 'u2' };
    await reserve(dead);
    await wakes('clearing a holder', () => writer.clearReservation(id, dead));
    await reserve();
    await quiet('a finished release', () =>
      writer.write(id, mine, { status: Status.SUCCESSFUL, release: { deferMs: 0 } }),
    );
    await wakes('a SUBMITTED insert', () => writer.insert(newFateId(), record(Status.SUBMITTED)));
  });
});

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
