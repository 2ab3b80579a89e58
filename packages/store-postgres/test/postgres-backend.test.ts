import { setTimeout as sleep } from 'node:timers/promises';
import { newFateId, Status } from '@fate/core';
import { SCHEMA_VERSION } from '@fate/store-postgres';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { itWithChildren, runScript, runTogether, step, usePostgres } from './postgres-harness.js';

const t = usePostgres();

afterEach(() => {
  vi.useRealTimers();
});

describe('postgres backend: schema and migrations', () => {
  itWithChildren(
    'migrates once when 4 processes open a fresh schema at the same moment',
    async () => {
      await runTogether(
        4,
        `import { openStore } from '@fate/core'; await import('@fate/store-postgres');`,
        `const store = await openStore(process.env.FATE_URL);
       await store.seed({ step: { type: 's', state: {} }, opName: 'child' });
       await store.close();`,
        { FATE_URL: t.url },
      );
      const store = await t.store();
      expect(await store.list({ opName: 'child' })).toHaveLength(4);
      const meta = await t.sql((c) => c.query(`SELECT key, value FROM ${t.schema}.fate_meta`));
      expect(meta.rows).toEqual([{ key: 'schema_version', value: String(SCHEMA_VERSION) }]);
      const tables = await t.sql((c) =>
        c.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, [
          t.schema,
        ]),
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual([
        'fate_counts',
        'fate_meta',
        'liveness',
        'transactions',
      ]);
    },
  );

  it('migrates finished rows of a version-1 schema into the age-off index and the counts', async () => {
    await (await t.store()).close();
    const ids = { stamped: newFateId(), own: newFateId(), unstamped: newFateId() };
    const broken = newFateId();
    await t.sql(async (c) => {
      // Back to version 1, as @fate/store-postgres wrote it before issue 26.
      await c.query(`DROP TABLE ${t.schema}.fate_counts`);
      const fns = ['fate_count_rows', 'fate_count_change'].map((f) => `${t.schema}.${f}`);
      await c.query(`DROP FUNCTION ${fns.join(', ')} CASCADE`);
      await c.query(
        `ALTER TABLE ${t.schema}.transactions DROP COLUMN finished_at, DROP COLUMN due_at`,
      );
      // and before issue 25: no priority column (dropping it drops the runnable index by
      // priority), the runnable index by id
      await c.query(`ALTER TABLE ${t.schema}.transactions DROP COLUMN priority`);
      await c.query(
        `CREATE INDEX transactions_runnable ON ${t.schema}.transactions (id, defer_until, op, status, res_lock) WHERE res_lock IS NULL`,
      );
      await c.query(`UPDATE ${t.schema}.fate_meta SET value = '1' WHERE key = 'schema_version'`);
      const insert = `INSERT INTO ${t.schema}.transactions (id, status, stack, info, op) VALUES ($1, $2, '[]', $3, 'old')`;
      const info = (o: object) =>
        JSON.stringify({ opName: 'old', returnValue: { ageOff: 9 }, ...o });
      await c.query(insert, [ids.stamped, 'SUCCESSFUL', info({ ageOff: 1_000 })]);
      await c.query(insert, [ids.own, 'FAILED', info({ ageOff: 2_000, retainMs: 500 })]);
      await c.query(insert, [ids.unstamped, 'SUCCESSFUL', info({})]);
      await c.query(insert, [broken, 'FAILED', '{not json']);
    });
    const backend = await t.backend();
    const due = await backend.ageOffDue?.({ finishedBefore: 1_500, now: 2_600, limit: 10 });
    expect(due).toEqual([
      { id: ids.stamped, finishedAt: 1_000 },
      { id: ids.own, finishedAt: 2_000 },
    ]);
    const later = await backend.ageOffDue?.({
      finishedBefore: Date.now() + 60_000,
      now: 0,
      limit: 10,
    });
    expect(later?.map((d) => d.id).sort()).toEqual([ids.stamped, ids.unstamped, broken].sort());
    expect(await backend.counts?.()).toEqual(
      expect.arrayContaining([
        { status: 'SUCCESSFUL', op: 'old', count: 2 },
        { status: 'FAILED', op: 'old', count: 2 },
      ]),
    );
  });

  it('counts from change rows: exact before and after they are folded, one row per group after', async () => {
    const store = await t.store();
    const seeded = await store.seedMany(
      Array.from({ length: 30 }, (_, i) => ({ step, opName: `op${i % 3}` })),
    );
    for (const { id } of seeded.slice(0, 10)) {
      const h = await store.reserve(id);
      await h.commit([{ op: 'setStatus', status: 'FAILED' as never }, { op: 'unreserve' }]);
    }
    await (await store.reserve(seeded[29]?.id as never)).delete();
    const rows = () =>
      t.sql(
        async (c) =>
          (await c.query(`SELECT count(*)::int AS n FROM ${t.schema}.fate_counts`)).rows[0].n,
      );
    // 3 from the seeding (one statement: one per op), 2 per change of status, 1 from the delete
    expect(await rows()).toBe(24);
    const expected = { total: 29, SUBMITTED: 19, FAILED: 10 };
    const check = async () => {
      const c = await store.counts();
      expect({
        total: c.total,
        SUBMITTED: c.byStatus.SUBMITTED,
        FAILED: c.byStatus.FAILED,
      }).toEqual(expected);
    };
    await check();
    expect(await rows()).toBe(24); // under FOLD_AFTER: the read does not fold
    await store.ageOffDue({ retentionMs: 0 }); // a sweep folds
    expect(await rows()).toBe(6); // (SUBMITTED, FAILED) x 3 ops
    await check();
  });

  it('a read folds the change rows once it finds more than FOLD_AFTER (1,000) of them, not before', async () => {
    const store = await t.store();
    await store.seedMany(Array.from({ length: 5 }, () => ({ step, opName: 'op' })));
    const rows = () =>
      t.sql(
        async (c) =>
          (await c.query(`SELECT count(*)::int AS n FROM ${t.schema}.fate_counts`)).rows[0].n,
      );
    // change rows that change no count (n = 0), up to exactly 1,000 rows
    const pad = (k: number) =>
      t.sql((c) =>
        c.query(
          `INSERT INTO ${t.schema}.fate_counts (status, op, n) SELECT 'SUBMITTED', 'op', 0 FROM generate_series(1, $1)`,
          [k],
        ),
      );
    await pad(1_000 - (await rows()));
    expect((await store.counts()).byStatus.SUBMITTED).toBe(5);
    expect(await rows()).toBe(1_000); // not more than FOLD_AFTER: kept
    await pad(1);
    expect((await store.counts()).byStatus.SUBMITTED).toBe(5);
    expect(await rows()).toBe(1); // folded: one row for (SUBMITTED, op)
    expect((await store.counts()).total).toBe(5);
  });

  it('refuses a schema newer than this package with FATE_STORE_CONFIG', async () => {
    await (await t.store()).close();
    await t.sql((c) =>
      c.query(`UPDATE ${t.schema}.fate_meta SET value = '99' WHERE key = 'schema_version'`),
    );
    await expect(t.store()).rejects.toMatchObject({ code: 'FATE_STORE_CONFIG' });
  });
});

describe('postgres backend: one clock, the server’s', () => {
  it('writes and judges deferrals and liveness by the server clock, whatever this process’s Date says', async () => {
    const DEFER_MS = 1_500;
    // The server's clock, asked directly (the server may be another host).
    const serverNow = async () =>
      t.sql(async (c) => {
        const r = await c.query(
          'SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS n',
        );
        return Number(r.rows[0]?.n);
      });
    const store = await t.store();
    const backend = await t.backend();
    const { id } = await store.seed({ step, opName: 'op' });
    const h = await store.reserve(id);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_600_000);
    expect(Math.abs(store.now() - (await serverNow()))).toBeLessThan(1_000);
    const released = await serverNow();
    // long enough that the reads below come before it ends, however loaded the machine
    await h.unreserve(DEFER_MS);
    const { deferUntil } = await store.read(id);
    expect(deferUntil).toBeGreaterThanOrEqual(released + DEFER_MS);
    expect(deferUntil).toBeLessThanOrEqual((await serverNow()) + DEFER_MS);
    expect((await store.scanRunnable()).ids).toEqual([]);
    const deadline = performance.now() + 5_000;
    while ((await store.scanRunnable()).ids.length === 0) {
      expect(performance.now()).toBeLessThan(deadline);
      await sleep(10);
    }
    expect((await serverNow()) - released).toBeGreaterThanOrEqual(DEFER_MS);
    const beatAt = await serverNow();
    await backend.heartbeat('short@1', '{"beat":1}', 100);
    const forgetAt = await t.sql(async (c) => {
      const r = await c.query(`SELECT forget_at FROM ${t.schema}.liveness`);
      return Number(r.rows[0]?.forget_at);
    });
    expect(forgetAt).toBeGreaterThanOrEqual(beatAt + 100);
    expect(forgetAt).toBeLessThanOrEqual((await serverNow()) + 100);
  });
});

describe('postgres backend: store hygiene', () => {
  it('prunes the liveness rows of lock ids that stopped writing, keeps renewed ones and tombstones', async () => {
    const backend = await t.backend();
    for (let i = 0; i < 5; i++) await backend.heartbeat(`crashed-${i}@x`, '{"beat":1}', 100);
    const closed = await t.store({ instanceId: 'closed' });
    await closed.registerInstance();
    await closed.close();
    for (let beat = 1; beat < 8; beat++) {
      await backend.heartbeat('renewing@x', `{"beat":${beat}}`, 100);
      await sleep(40);
    }
    await backend.heartbeat('renewing@x', '{"beat":9}', 100);
    const kept = (await backend.instances()).map((r) => r.lockId).sort();
    expect(kept).toEqual([closed.lockId, 'renewing@x'].sort());
    const rows = await t.sql((c) =>
      c.query(`SELECT lock_id FROM ${t.schema}.liveness ORDER BY lock_id`),
    );
    expect(rows.rows.map((r) => r.lock_id).sort()).toEqual(kept);
  });
});

describe('postgres backend: wake-ups', () => {
  itWithChildren(
    'wakes a listener when another process seeds, and seeds many in one statement',
    async () => {
      const listener = await t.store();
      let woken = 0;
      await listener.onWakeup(() => woken++);
      await runScript(
        `import { openStore } from '@fate/core';
       const store = await openStore(process.env.FATE_URL);
       await store.seedMany([1, 2, 3].map((n) => ({ step: { type: 's', state: { n } }, opName: 'child' })));
       await store.close();`,
        { FATE_URL: t.url },
      );
      const deadline = performance.now() + 5_000;
      while (woken === 0) {
        expect(performance.now()).toBeLessThan(deadline);
        await sleep(10);
      }
      expect((await listener.scanRunnable()).ops).toEqual(['child', 'child', 'child']);
    },
  );

  it('answers insertMany per record: new, existing, and an id given twice', async () => {
    const backend = await t.backend();
    const [a, b] = [newFateId(), newFateId()];
    const record = { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' } as const;
    expect(await backend.insert(a, record)).toBe(true);
    const answers = await backend.insertMany([
      { id: a, record },
      { id: b, record },
      { id: b, record },
    ]);
    expect(answers).toEqual([false, true, false]);
  });
});
