import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { StoreFixture } from '@fate/conformance';
import { type FateId, inRange, newFateId, openStore, partitionRange, Status } from '@fate/core';
import {
  createSqliteStore,
  createStoreBackend,
  parseSqliteUrl,
  SCHEMA_VERSION,
  type SqliteBackend,
} from '@fate/store-sqlite';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqliteFixture } from './sqlite-fixture.js';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const step = { type: 's', state: {} };

let fixture: StoreFixture & { readonly file: string };
let backends: SqliteBackend[];

beforeEach(() => {
  fixture = sqliteFixture();
  backends = [];
});

afterEach(async () => {
  await Promise.allSettled(backends.map((b) => b.close()));
  await fixture.destroy();
});

async function openBackend(url = fixture.url as string): Promise<SqliteBackend> {
  const backend = createStoreBackend(url);
  backends.push(backend);
  await backend.open();
  return backend;
}

/** Runs `fn` on a raw connection of its own. */
function withRaw<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(fixture.file, { timeout: 5_000 });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function plan(db: Database.Database, sql: string): string[] {
  const params = Array.from(sql.matchAll(/\?/g), () => '80000000');
  return db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => row.detail);
}

describe('sqlite backend: scans read only their range', () => {
  it('plans range scans as a search of the partial runnable index, never a table scan', async () => {
    const store = await fixture.open();
    for (let i = 0; i < 50; i++) await store.seed({ step, opName: 'op' });
    const { statements } = await openBackend();
    for (const analyzed of [false, true]) {
      if (analyzed) withRaw((db) => db.exec('ANALYZE'));
      withRaw((db) => {
        expect(plan(db, statements.scanFrom.sql)).toEqual([
          'SEARCH transactions USING COVERING INDEX transactions_runnable (id>?)',
        ]);
        expect(plan(db, statements.scanTo.sql)).toEqual([
          'SEARCH transactions USING COVERING INDEX transactions_runnable (id<?)',
        ]);
        expect(plan(db, statements.scanBetween.sql)).toEqual([
          'SEARCH transactions USING COVERING INDEX transactions_runnable (id>? AND id<?)',
        ]);
        // An open range reads the partial index whole: runnable, unreserved rows only.
        expect(plan(db, statements.scanAll.sql)).toEqual([
          'SCAN transactions USING COVERING INDEX transactions_runnable',
        ]);
        for (const single of [
          'read',
          'reserve',
          'holder',
          'write',
          'remove',
          'clearReservation',
        ] as const) {
          expect(plan(db, statements[single].sql), single).toEqual([
            'SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 (id=?)',
          ]);
        }
      });
    }
  });

  it('counts as read exactly the runnable, unreserved rows in the range, deferred ones included', async () => {
    const store = await fixture.open();
    const ids: FateId[] = [];
    for (let i = 0; i < 240; i++) ids.push((await store.seed({ step, opName: 'op' })).id);
    // Every third finished, every fifth held, every seventh deferred: none of the first
    // two kinds may be read; deferred ones are read (they set nextDeferralAt).
    const deferred = new Set<string>();
    for (const [i, id] of ids.entries()) {
      if (i % 3 === 0) {
        const h = await store.reserve(id);
        await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      } else if (i % 5 === 0) {
        await store.reserve(id);
      } else if (i % 7 === 0) {
        await (await store.reserve(id)).unreserve(60_000);
        deferred.add(id);
      }
    }
    const candidates = ids.filter((_, i) => i % 3 !== 0 && i % 5 !== 0);
    for (const range of [
      partitionRange({ partition: 1, total: 4 }),
      { start: '8' },
      { end: '4' },
      undefined,
    ]) {
      const inside = candidates.filter((id) => inRange(id, range)).sort();
      const scan = await store.scanRunnable(range);
      expect(scan.itemsRead).toBe(inside.length);
      expect(scan.ids).toEqual(inside.filter((id) => !deferred.has(id)));
      expect(scan.nextDeferralAt !== undefined).toBe(inside.some((id) => deferred.has(id)));
    }
  });
});

describe('sqlite backend: schema and connections', () => {
  it('migrates once when several processes open a fresh file at the same moment', async () => {
    const startAt = Date.now() + 1_000;
    const child = `
      import { createSqliteStore } from '@fate/store-sqlite';
      await new Promise((r) => setTimeout(r, ${startAt} - Date.now()));
      const store = await createSqliteStore({ path: process.env.FATE_FILE });
      await store.seed({ step: { type: 's', state: {} }, opName: 'child' });
      await store.close();
    `;
    await Promise.all(
      Array.from({ length: 4 }, () =>
        run(process.execPath, ['--input-type=module', '-e', child], {
          cwd: PACKAGE_DIR,
          env: { ...process.env, FATE_FILE: fixture.file },
        }),
      ),
    );
    const store = await fixture.open();
    expect(await store.list()).toHaveLength(4);
    withRaw((db) => {
      expect(db.prepare('SELECT key, value FROM fate_meta').all()).toEqual([
        { key: 'schema_version', value: String(SCHEMA_VERSION) },
      ]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    });
  });

  it('reopens an existing file without changing its schema or data', async () => {
    const schema = () =>
      withRaw((db) => db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all());
    const first = await fixture.open();
    const { id } = await first.seed({ step, opName: 'op' });
    const before = schema();
    const [a, b] = await Promise.all([fixture.open(), fixture.open()]);
    expect(schema()).toEqual(before);
    expect((await a.read(id)).status).toBe(Status.SUBMITTED);
    expect((await b.read(id)).status).toBe(Status.SUBMITTED);
  });

  it('shows each connection the writes of another at once', async () => {
    const a = await fixture.open();
    const b = await fixture.open();
    const { id } = await a.seed({ step, opName: 'op' });
    expect((await b.read(id)).status).toBe(Status.SUBMITTED);
    const held = await b.reserve(id);
    expect(await a.tryReserve(id)).toBeUndefined();
    expect((await a.read(id)).reservation).toEqual(held.reservation);
    await held.commit([{ op: 'setStatus', status: Status.IN_PROGRESS }, { op: 'unreserve' }]);
    expect((await a.read(id)).status).toBe(Status.IN_PROGRESS);
    expect((await a.scanRunnable()).ids).toEqual([id]);
  });

  it('tells an absent record from a held one, and lets the same reservation retry', async () => {
    const backend = await openBackend();
    const id = newFateId();
    const mine = { lockId: 'me', uuid: 'u1' };
    expect(await backend.tryReserve(id, mine)).toBe('absent');
    await backend.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}' });
    expect(await backend.tryReserve(id, mine)).toMatchObject({ reservation: mine });
    expect(await backend.tryReserve(id, mine)).toMatchObject({ reservation: mine });
    expect(await backend.tryReserve(id, { lockId: 'me', uuid: 'u2' })).toBe('held');
    expect(await backend.write(id, { lockId: 'me', uuid: 'u2' }, { status: Status.FAILED })).toBe(
      false,
    );
    expect(await backend.write(id, mine, { release: { deferUntil: 7 } })).toBe(true);
    expect(await backend.read(id)).toMatchObject({
      status: Status.SUBMITTED,
      reservation: null,
      deferUntil: 7,
    });
  });

  it('runs hot operations on statements prepared at open, never preparing again', async () => {
    const store = await fixture.open({ instanceId: 'hot' });
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    try {
      for (let i = 0; i < 20; i++) {
        const { id } = await store.seed({ step, opName: 'op' });
        await store.read(id);
        const h = await store.reserve(id);
        await h.setStatus(Status.IN_PROGRESS);
        await h.unreserve(i % 2 ? 1_000 : 0);
        expect(await store.tryReserve(id)).toBeDefined();
        await store.heartbeat();
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

describe('sqlite backend: URLs and failures', () => {
  it('parses sqlite: URLs and refuses others with FATE_BAD_URL', () => {
    expect(parseSqliteUrl('sqlite:./fate.db')).toEqual({ path: './fate.db' });
    expect(parseSqliteUrl('sqlite:relative/x.db')).toEqual({ path: 'relative/x.db' });
    expect(parseSqliteUrl('sqlite:/abs/path.db')).toEqual({ path: '/abs/path.db' });
    expect(parseSqliteUrl('SQLITE:///abs/path.db')).toEqual({ path: '/abs/path.db' });
    for (const bad of [
      'sqlite:',
      'sqlite://host/x.db',
      'sqlite::memory:',
      'redis://x',
      'fate.db',
      '',
    ]) {
      expect(() => createStoreBackend(bad), bad).toThrow(
        expect.objectContaining({ code: 'FATE_BAD_URL' }),
      );
    }
  });

  it('opens through openStore and creates missing parent directories', async () => {
    const nested = join(fixture.file, '..', 'a', 'b', 'nested.db');
    const store = await openStore(`sqlite:${nested}`);
    try {
      const { id } = await store.seed({ step, opName: 'op' });
      expect((await store.read(id)).status).toBe(Status.SUBMITTED);
    } finally {
      await store.close();
    }
  });

  it('refuses a bad config with FATE_INVALID_ARGUMENT', async () => {
    for (const config of [
      { path: '' },
      { path: ':memory:' },
      { path: 'x.db', busyTimeoutMs: -1 },
    ]) {
      await expect(createSqliteStore(config)).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
      });
    }
  });

  it('reports an unusable path or a file that is not a database as FATE_STORE_UNAVAILABLE', async () => {
    const notADir = join(fixture.file, '..', 'plain-file');
    writeFileSync(notADir, 'x');
    await expect(createSqliteStore({ path: join(notADir, 'x.db') })).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
      cause: expect.objectContaining({ code: expect.stringMatching(/^E/) }),
    });
    const garbage = join(fixture.file, '..', 'garbage.db');
    writeFileSync(garbage, 'this is not an SQLite database, not even close. '.repeat(100));
    await expect(createSqliteStore({ path: garbage })).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
      cause: expect.objectContaining({ code: 'SQLITE_NOTADB' }),
    });
    const dir = join(fixture.file, '..', 'a-directory.db');
    mkdirSync(dir);
    await expect(createSqliteStore({ path: dir })).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
      cause: expect.objectContaining({ code: expect.stringMatching(/^SQLITE_CANTOPEN/) }),
    });
  });

  it('refuses a file whose schema is newer than this package', async () => {
    await (await fixture.open()).close();
    withRaw((db) =>
      db.prepare(`UPDATE fate_meta SET value = '99' WHERE key = 'schema_version'`).run(),
    );
    await expect(fixture.open()).rejects.toMatchObject({ code: 'FATE_STORE_UNAVAILABLE' });
  });

  it('fails a write with FATE_STORE_UNAVAILABLE once the lock outlasts busyTimeoutMs, while reads go on', async () => {
    const store = await createSqliteStore({ path: fixture.file, busyTimeoutMs: 50 });
    try {
      const { id } = await store.seed({ step, opName: 'op' });
      const locker = new Database(fixture.file);
      try {
        locker.exec('BEGIN IMMEDIATE');
        await expect(store.seed({ step, opName: 'op' })).rejects.toMatchObject({
          code: 'FATE_STORE_UNAVAILABLE',
          cause: expect.objectContaining({ code: 'SQLITE_BUSY' }),
        });
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
