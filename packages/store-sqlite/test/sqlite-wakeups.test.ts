import { type ChildProcess, fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { newFateId, Status } from '@fate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_DIR, step, useSqlite } from './sqlite-harness.js';
import { counter, QUIET_MS, WAKE_MS } from './sqlite-wakeup-counter.js';

const t = useSqlite();

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
