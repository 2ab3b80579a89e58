// Seed-to-start latency from another process on SQLite: one engine (1 instance, 4 workers,
// default finder backoff) runs in a forked child; this process seeds one transaction at a
// time through a store client of its own, spaced by a random pause so samples do not lock
// to the finder's backoff, and the sample is from just before `seed` here to the moment the
// step's `call` began there (process.hrtime: the host's monotonic clock, shared by both).
//
//   npm run build && node packages/store-sqlite/scripts/wake-latency.mjs [samples] [--no-wakeups]
//
// --no-wakeups runs the engine on a backend that declares no wake-ups (as before them):
// only the finder's polling starts the work. Prints a table and a JSON line.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFatesStore, Fate } from '@fate/core';
import { createSqliteStore, createStoreBackend } from '@fate/store-sqlite';

const STEP = 'wake-latency-noop';

if (process.env.FATE_WAKE_ROLE === 'engine') await engine();
else await main();

/** The child: an engine whose step reports when its call began. */
async function engine() {
  const backend = createStoreBackend(`sqlite:${process.env.FATE_FILE}`);
  const wakeups = process.env.FATE_WAKEUPS !== 'off';
  const raw = wakeups
    ? backend
    : new Proxy(backend, {
        get: (target, key) => {
          if (key === 'capabilities') return { ...target.capabilities, wakeups: false };
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
  const store = await createFatesStore(raw, { instanceId: 'wake-latency-engine' });
  const noop = {
    type: STEP,
    isReady: () => 0,
    call: (id) => {
      process.send?.({ id, startedAt: process.hrtime.bigint().toString() });
      return undefined;
    },
    undo: () => undefined,
    state: () => ({}),
  };
  const fate = new Fate({
    store,
    env: {},
    steps: [{ type: STEP, fromState: () => noop }],
    workers: 4,
    onEvent: () => undefined,
  });
  await fate.start();
  process.send?.({ ready: true });
  await once(process, 'disconnect');
  await fate.shutdown(5_000);
  await store.close();
}

async function main() {
  const samples = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 200);
  const wakeups = !process.argv.includes('--no-wakeups');
  const dir = mkdtempSync(join(tmpdir(), 'fate-wake-latency-'));
  const file = join(dir, 'fate.db');
  const producer = await createSqliteStore({ path: file });
  const child = fork(new URL(import.meta.url).pathname, [], {
    env: {
      ...process.env,
      FATE_WAKE_ROLE: 'engine',
      FATE_FILE: file,
      FATE_WAKEUPS: wakeups ? 'on' : 'off',
    },
  });
  const started = new Map();
  const waiting = new Map();
  child.on('message', (m) => {
    if (!m.id) return;
    const at = BigInt(m.startedAt);
    const waiter = waiting.get(m.id);
    if (waiter) waiter(at);
    else started.set(m.id, at);
  });
  const startOf = (id) =>
    started.has(id)
      ? Promise.resolve(started.get(id))
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${id} did not start in 10 s`)), 10_000);
          waiting.set(id, (at) => {
            clearTimeout(timer);
            resolve(at);
          });
        });
  try {
    const [ready] = await once(child, 'message');
    if (!ready.ready) throw new Error('the engine did not start');
    await sleep(1_000); // the finder settles into its longest backoff
    const ms = [];
    for (let i = 0; i < samples; i++) {
      await sleep(20 + Math.random() * 80);
      const before = process.hrtime.bigint();
      const { id } = await producer.seed({ step: { type: STEP, state: {} }, opName: 'latency' });
      ms.push(Number((await startOf(id)) - before) / 1e6);
    }
    ms.sort((a, b) => a - b);
    const at = (p) => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))];
    const row = {
      backend: 'sqlite',
      seededBy: 'other-process',
      wakeups,
      samples: ms.length,
      p50Ms: at(50),
      p90Ms: at(90),
      p99Ms: at(99),
      maxMs: ms[ms.length - 1],
      load1: loadavg()[0],
    };
    console.log('| wake-ups | samples | p50 ms | p90 ms | p99 ms | max ms | load (1 min) |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| ${wakeups ? 'on' : 'off'} | ${row.samples} | ${row.p50Ms.toFixed(2)} | ` +
        `${row.p90Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} | ${row.maxMs.toFixed(2)} | ` +
        `${row.load1.toFixed(2)} |`,
    );
    console.log(JSON.stringify(row));
  } finally {
    child.disconnect();
    await once(child, 'exit');
    await producer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
