import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Recorder, scriptData, scriptStepType } from '@fate/conformance';
import { Fate, Status } from '@fate/core';
import { createSqliteStore } from '@fate/store-sqlite';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PACKAGE_DIR, step, useSqlite } from './sqlite-harness.js';

const t = useSqlite();

/** Another process takes the write lock of `file` and holds it for `ms`; resolves when held. */
async function holdWriteLock(file: string, ms: number) {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import Database from 'better-sqlite3';
       const db = new Database(process.env.FATE_FILE);
       db.exec('BEGIN IMMEDIATE');
       console.log('locked');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`,
    ],
    {
      cwd: PACKAGE_DIR,
      env: { ...process.env, FATE_FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = once(child, 'exit');
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'locked') return { lockedAt: performance.now(), exited };
  }
  throw new Error('the lock holder exited before it took the lock');
}

/** Measures the longest gap between ticks of a 5 ms interval timer, until stopped. */
function stallMeter() {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}

describe('sqlite backend: waiting for another process’s write lock', () => {
  it('keeps the event loop running while a write waits 1.5 s for the lock, then applies it', async () => {
    const store = await t.store();
    const { id: before } = await store.seed({ step, opName: 'op' });
    const { lockedAt, exited } = await holdWriteLock(t.fixture.file, 1_500);
    const meter = stallMeter();
    const { id, created } = await store.seed({ step, opName: 'op' });
    const waited = performance.now() - lockedAt;
    const stall = meter.stop();
    await exited;
    console.log(
      `a write waited ${waited.toFixed(0)} ms for the lock; longest event-loop stall ${stall.toFixed(1)} ms`,
    );
    expect(created).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(1_000); // it really waited for the other process
    expect(stall).toBeLessThan(500); // the old synchronous busy wait stalled it for all 1.5 s
    expect((await store.scanRunnable()).ids.sort()).toEqual([before, id].sort());
  });

  it('fails a write with FATE_STORE_UNAVAILABLE once the lock outlasts busyTimeoutMs, while reads go on', async () => {
    const store = await createSqliteStore({ path: t.fixture.file, busyTimeoutMs: 200 });
    try {
      const { id } = await store.seed({ step, opName: 'op' });
      const locker = new Database(t.fixture.file);
      try {
        locker.exec('BEGIN IMMEDIATE');
        const started = performance.now();
        await expect(store.seed({ step, opName: 'op' })).rejects.toMatchObject({
          code: 'FATE_STORE_UNAVAILABLE',
          cause: expect.objectContaining({ code: 'SQLITE_BUSY' }),
        });
        expect(performance.now() - started).toBeGreaterThanOrEqual(190);
        // WAL: readers do not wait for the writer.
        expect((await store.scanRunnable()).ids).toEqual([id]);
        expect((await store.read(id)).status).toBe(Status.SUBMITTED);
        locker.exec('COMMIT');
      } finally {
        locker.close();
      }
      expect((await store.seed({ step, opName: 'op' })).created).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite backend: calls answered at once still let the event loop turn', () => {
  it('runs timers while an engine works through a backlog of 2,000 transactions', async () => {
    // A long liveness timeout: without turns, timers simply wait for the whole backlog
    // (with a short one, heartbeats stop, the lease lapses and the engine livelocks).
    const store = await t.store({ livenessTimeoutMs: 60_000 });
    const seeded = await store.seedMany(
      Array.from({ length: 2_000 }, () => ({ step: scriptData(1), opName: 'op' })),
    );
    const env = new Recorder();
    const fate = new Fate({ env, steps: [scriptStepType], workers: 8, store });
    const meter = stallMeter();
    const started = performance.now();
    await fate.start();
    try {
      for (const { id } of seeded) await fate.waitForCompletion(id, { timeoutMs: 60_000 });
    } finally {
      await fate.shutdown();
    }
    const stall = meter.stop();
    console.log(
      `2,000 transactions in ${(performance.now() - started).toFixed(0)} ms; longest event-loop stall ${stall.toFixed(1)} ms`,
    );
    expect(stall).toBeLessThan(500);
  });
});
