import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { step, useSqlite, withRaw } from './sqlite-harness.js';

const t = useSqlite();
const HOUR = 3_600_000;

/** Epoch ms by the OS clock, whatever `Date` has been made to say. */
const realNow = () => performance.timeOrigin + performance.now();

/** Polls `probe` (by the monotonic clock) until it is true; fails after `ms`. */
async function until(what: string, probe: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

const livenessRows = () =>
  withRaw(t.fixture.file, (db) =>
    db.prepare('SELECT lock_id FROM liveness ORDER BY lock_id').pluck().all(),
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('sqlite backend: one clock, SQLite’s', () => {
  it('writes and judges deferrals and liveness by SQLite’s clock, whatever this process’s Date says', async () => {
    const store = await t.store();
    const backend = await t.backend();
    const { id } = await store.seed({ step, opName: 'op' });
    const h = await store.reserve(id);
    // This process's JS clock runs an hour ahead from here on; SQLite's does not.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + HOUR);
    expect(Math.abs(store.now() - realNow())).toBeLessThan(1_000);
    const released = realNow();
    await h.unreserve(300);
    const { deferUntil } = await store.read(id);
    expect(deferUntil).toBeGreaterThanOrEqual(released + 300 - 50);
    expect(deferUntil).toBeLessThan(realNow() + 300 + 50);
    // Judged by Date it would be due at once; written by Date, hidden for an hour.
    expect((await store.scanRunnable()).ids).toEqual([]);
    await until(
      'the deferral passes',
      async () => (await store.scanRunnable()).ids.length > 0,
      5_000,
    );
    expect(realNow() - released).toBeGreaterThanOrEqual(250);

    await backend.heartbeat('short@1', '{"beat":1}', 200);
    const forgetAt = withRaw(t.fixture.file, (db) =>
      db.prepare('SELECT forget_at FROM liveness WHERE lock_id = ?').pluck().get('short@1'),
    ) as number;
    expect(Math.abs(forgetAt - (realNow() + 200))).toBeLessThan(1_000);
    await until(
      'the record is forgotten',
      async () => (await backend.instances()).length === 0,
      5_000,
    );
  });
});

describe('sqlite backend: liveness records are forgotten after their time (store hygiene)', () => {
  it('prunes the rows of lock ids that stopped writing, keeps the renewed ones and tombstones', async () => {
    const backend = await t.backend();
    // Crashed engines: they wrote once and never again.
    for (let i = 0; i < 5; i++) await backend.heartbeat(`crashed-${i}@x`, '{"beat":1}', 100);
    await backend.heartbeat('renewing@x', '{"beat":1}', 100);
    // A clean close writes a tombstone, which must outlive the client.
    const closed = await t.store({ instanceId: 'closed' });
    await closed.registerInstance();
    await closed.close();
    for (let beat = 2; beat < 8; beat++) {
      await sleep(40);
      await backend.heartbeat('renewing@x', `{"beat":${beat}}`, 100);
    }
    const kept = (await backend.instances()).map((r) => r.lockId);
    expect(kept).toEqual([closed.lockId, 'renewing@x'].sort());
    expect(livenessRows()).toEqual(kept);
    expect(JSON.parse((await backend.instances())[0]?.state ?? '{}')).toMatchObject({ gone: true });
  });

  it('still answers while another process holds the write lock, and prunes on a later look', async () => {
    const backend = await t.backend();
    await backend.heartbeat('crashed@x', '{"beat":1}', 1);
    await backend.heartbeat('live@x', '{"beat":1}', 60_000);
    await sleep(20);
    const locker = new Database(t.fixture.file);
    try {
      locker.exec('BEGIN IMMEDIATE');
      expect((await backend.instances()).map((r) => r.lockId)).toEqual(['live@x']);
      locker.exec('COMMIT');
    } finally {
      locker.close();
    }
    expect(livenessRows()).toEqual(['crashed@x', 'live@x']);
    expect((await backend.instances()).map((r) => r.lockId)).toEqual(['live@x']);
    expect(livenessRows()).toEqual(['live@x']);
  });
});
