import { newFateId, Status } from '@fate/core';
import { SCHEMA_VERSION } from '@fate/store-sqlite';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { sqliteFixture } from './sqlite-fixture.js';
import { runScript, step, useSqlite, withRaw } from './sqlite-harness.js';
import { SCHEMA_2 } from './sqlite-schema-2.js';

const t = useSqlite();

/** Opens the file from 4 processes at the same moment; each seeds one transaction. */
async function openFromFourProcesses(file: string): Promise<void> {
  const startAt = Date.now() + 1_000;
  const child = `
    import { createSqliteStore } from '@fate/store-sqlite';
    await new Promise((r) => setTimeout(r, ${startAt} - Date.now()));
    const store = await createSqliteStore({ path: process.env.FATE_FILE });
    await store.seed({ step: { type: 's', state: {} }, opName: 'child' });
    await store.close();
  `;
  await Promise.all(Array.from({ length: 4 }, () => runScript(child, { FATE_FILE: file })));
}

const schemaOf = (file: string) =>
  withRaw(file, (db) =>
    db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name').all(),
  );

describe('sqlite backend: schema and connections', () => {
  it('migrates once when several processes open a fresh file at the same moment', async () => {
    await openFromFourProcesses(t.fixture.file);
    const store = await t.store();
    expect(await store.list({ opName: 'child' })).toHaveLength(4);
    withRaw(t.fixture.file, (db) => {
      expect(db.prepare('SELECT key, value FROM fate_meta').all()).toEqual([
        { key: 'schema_version', value: String(SCHEMA_VERSION) },
      ]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    });
  });

  it('migrates a schema-2 file with data once from 4 processes: ops filled in, leases replaced', async () => {
    const legacy = newFateId();
    const held = newFateId();
    const broken = newFateId();
    withRaw(t.fixture.file, (db) => {
      db.exec(SCHEMA_2);
      const insert = db.prepare(
        'INSERT INTO transactions (id, status, stack, info, res_lock, res_uuid) VALUES (?, ?, ?, ?, ?, ?)',
      );
      const stack = JSON.stringify([step]);
      insert.run(legacy, 'SUBMITTED', stack, JSON.stringify({ opName: 'legacy' }), null, null);
      insert.run(held, 'IN_PROGRESS', stack, JSON.stringify({ opName: 'held' }), 'w1', 'u1');
      insert.run(broken, 'SUBMITTED', stack, '{not json', null, null);
      db.prepare('INSERT INTO instances (id, expires_at) VALUES (?, ?)').run('w1', 1);
    });
    await openFromFourProcesses(t.fixture.file);
    // The same schema as a file made by this version from nothing.
    const fresh = sqliteFixture();
    try {
      await (await t.backend(fresh.url)).close();
      expect(schemaOf(t.fixture.file)).toEqual(schemaOf(fresh.file));
    } finally {
      await fresh.destroy();
    }
    const backend = await t.backend();
    const scan = await backend.scanRunnable(undefined, 100);
    const opOf = (id: string) => scan.ops[scan.ids.indexOf(id)];
    expect(scan.ids).toContain(legacy);
    expect(scan.ids).toContain(broken);
    expect(opOf(legacy)).toBe('legacy');
    expect(opOf(broken)).toBe('');
    expect(scan.ops.filter((op) => op === 'child')).toHaveLength(4);
    expect(await backend.read(held)).toMatchObject({
      status: Status.IN_PROGRESS,
      reservation: { lockId: 'w1', uuid: 'u1' },
    });
    expect(await backend.instances()).toEqual([]);
    withRaw(t.fixture.file, (db) => {
      expect(db.prepare('SELECT value FROM fate_meta').pluck().get()).toBe(String(SCHEMA_VERSION));
      expect(db.prepare('SELECT op FROM transactions WHERE id = ?').pluck().get(held)).toBe('held');
    });
  });

  it('migrates finished rows of an older file into the age-off index and the counts', async () => {
    const stamped = newFateId();
    const own = newFateId();
    const unstamped = newFateId();
    const broken = newFateId();
    const running = newFateId();
    withRaw(t.fixture.file, (db) => {
      db.exec(SCHEMA_2);
      const insert = db.prepare(
        'INSERT INTO transactions (id, status, stack, info) VALUES (?, ?, ?, ?)',
      );
      const info = (o: object) => JSON.stringify({ opName: 'old', ...o });
      insert.run(stamped, 'SUCCESSFUL', '[]', info({ ageOff: 1_000 }));
      insert.run(own, 'FAILED', '[]', info({ ageOff: 2_000, retainMs: 500 }));
      insert.run(unstamped, 'SUCCESSFUL', '[]', info({}));
      insert.run(broken, 'FAILED', '[]', '{not json');
      insert.run(running, 'IN_PROGRESS', '[]', info({ ageOff: 5 }));
    });
    const backend = await t.backend();
    const before = Date.now();
    const due = await backend.ageOffDue?.({ finishedBefore: 1_500, now: 2_600, limit: 10 });
    expect(due).toEqual([
      { id: stamped, finishedAt: 1_000 },
      { id: own, finishedAt: 2_000 },
    ]);
    const later = await backend.ageOffDue?.({ finishedBefore: before + 60_000, now: 0, limit: 10 });
    expect(later?.map((d) => d.id).sort()).toEqual([stamped, unstamped, broken].sort());
    expect(await backend.counts?.()).toEqual(
      expect.arrayContaining([
        { status: 'SUCCESSFUL', op: 'old', count: 2 },
        { status: 'FAILED', op: 'old', count: 1 },
        { status: 'FAILED', op: '', count: 1 },
        { status: 'IN_PROGRESS', op: 'old', count: 1 },
      ]),
    );
  });

  it('reopens an existing file without changing its schema or data', async () => {
    const first = await t.store();
    const { id } = await first.seed({ step, opName: 'op' });
    const before = schemaOf(t.fixture.file);
    const [a, b] = await Promise.all([t.store(), t.store()]);
    expect(schemaOf(t.fixture.file)).toEqual(before);
    expect((await a.read(id)).status).toBe(Status.SUBMITTED);
    expect((await b.read(id)).status).toBe(Status.SUBMITTED);
  });

  it('shows each connection the writes of another at once', async () => {
    const a = await t.store();
    const b = await t.store();
    const { id } = await a.seed({ step, opName: 'op' });
    expect((await b.read(id)).status).toBe(Status.SUBMITTED);
    const held = await b.reserve(id);
    expect(await a.tryReserve(id)).toBeUndefined();
    expect((await a.read(id)).reservation).toEqual(held.reservation);
    await held.commit([{ op: 'setStatus', status: Status.IN_PROGRESS }, { op: 'unreserve' }]);
    expect((await a.read(id)).status).toBe(Status.IN_PROGRESS);
    expect((await a.scanRunnable()).ids).toEqual([id]);
  });

  it('tells an absent record from a held one, lets the same reservation retry, defers by the store clock', async () => {
    const backend = await t.backend();
    const id = newFateId();
    const mine = { lockId: 'me@1', uuid: 'u1' };
    expect(await backend.tryReserve(id, mine)).toBe('absent');
    await backend.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' });
    expect(await backend.tryReserve(id, mine)).toMatchObject({ reservation: mine });
    expect(await backend.tryReserve(id, mine)).toMatchObject({ reservation: mine });
    expect(await backend.tryReserve(id, { lockId: 'me@1', uuid: 'u2' })).toBe('held');
    expect(await backend.write(id, { lockId: 'me@1', uuid: 'u2' }, { status: 'FAILED' })).toBe(
      false,
    );
    const before = backend.now();
    expect(await backend.write(id, mine, { release: { deferMs: 7.2 } })).toBe(true);
    const { deferUntil } = (await backend.read(id)) ?? { deferUntil: 0 };
    expect(deferUntil).toBeGreaterThanOrEqual(before + 8);
    expect(deferUntil).toBeLessThanOrEqual(backend.now() + 8);
    expect(await backend.read(id)).toMatchObject({ status: Status.SUBMITTED, reservation: null });
    // Retaking keeps the stored deferral; a release without one clears it.
    expect(await backend.tryReserve(id, mine)).toMatchObject({ deferUntil });
    expect(await backend.write(id, mine, { release: { deferMs: 0 } })).toBe(true);
    expect(await backend.read(id)).toMatchObject({ deferUntil: 0, reservation: null });
  });

  it('runs hot operations on statements prepared at open, never preparing again', async () => {
    const store = await t.store({ instanceId: 'hot' });
    await store.registerInstance();
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    try {
      for (let i = 0; i < 20; i++) {
        const { id } = await store.seed({ step, opName: 'op' });
        await store.seedMany([
          { step, opName: 'a' },
          { step, opName: 'b' },
        ]);
        await store.read(id);
        const h = await store.reserve(id);
        await h.setStatus(Status.IN_PROGRESS);
        await h.unreserve(i % 2 ? 1_000 : 0);
        expect(await store.tryReserve(id)).toBeDefined();
        await store.heartbeat();
        await store.liveInstances();
        await store.clearDeadReservations({ start: '4' });
        await store.releaseOrphans();
        store.now();
        for (const range of [undefined, { start: '4' }, { end: 'c' }, { start: '4', end: 'c' }]) {
          await store.scanRunnable(range);
        }
      }
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
    }
  });
});
