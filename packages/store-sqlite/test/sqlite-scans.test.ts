import {
  type FateId,
  inRange,
  newFateId,
  PRIORITY_LEVELS,
  partitionRange,
  Status,
} from '@fate/core';
import { adminQueries, claimQueries, mapShapes } from '@fate/sql-common';
import { describe, expect, it } from 'vitest';
import { sqliteDialect } from '../src/sqlite-dialect.js';
import { PreparedQuery, unprobed } from '../src/sqlite-prepared.js';
import { plan, step, useSqlite, withRaw } from './sqlite-harness.js';

const t = useSqlite();

describe('sqlite backend: scans and reservation listings read only what they need', () => {
  it('plans range scans and reservation listings as index searches, never a table scan', async () => {
    const store = await t.store();
    for (let i = 0; i < 50; i++) await store.seed({ step, opName: 'op' });
    for (const { id } of (await store.list()).slice(0, 10)) await store.reserve(id);
    const { statements: s } = await t.backend();
    for (const analyzed of [false, true]) {
      if (analyzed) withRaw(t.fixture.file, (db) => db.exec('ANALYZE'));
      withRaw(t.fixture.file, (db) => {
        // The runnable scan: one index search per priority level (`sql-priority.ts`), each
        // from its own lower bound (the range's start, or the cursor in its level).
        for (const [shape, bounds] of [
          ['all', 'id>?'],
          ['from', 'id>?'],
          ['to', 'id>? AND id<?'],
          ['between', 'id>? AND id<?'],
        ] as const) {
          const reads = plan(db, s.scan[shape].sql).filter((line) => / transactions /.test(line));
          expect(reads, shape).toEqual(
            Array.from(
              { length: PRIORITY_LEVELS.length },
              () =>
                `SEARCH transactions USING COVERING INDEX transactions_runnable (priority=? AND ${bounds})`,
            ),
          );
        }
        for (const [index, shapes] of [['transactions_reserved', s.reserved]] as const) {
          expect(plan(db, shapes.from.sql)).toEqual([
            `SEARCH transactions USING COVERING INDEX ${index} (id>?)`,
          ]);
          expect(plan(db, shapes.to.sql)).toEqual([
            `SEARCH transactions USING COVERING INDEX ${index} (id<?)`,
          ]);
          expect(plan(db, shapes.between.sql)).toEqual([
            `SEARCH transactions USING COVERING INDEX ${index} (id>? AND id<?)`,
          ]);
          // An open range reads the partial index whole: only the rows it holds.
          expect(plan(db, shapes.all.sql)).toEqual([
            `SCAN transactions USING COVERING INDEX ${index}`,
          ]);
        }
        // One lock id's reservations: the held rows only (the work in flight).
        expect(plan(db, s.reservedBy.sql)).toEqual([
          'SCAN transactions USING COVERING INDEX transactions_reserved',
        ]);
        for (const single of [
          'read',
          'reserve',
          'holder',
          'write',
          'remove',
          'clearReservation',
        ] as const) {
          expect(plan(db, s[single].sql), single).toEqual([
            'SEARCH transactions USING PRIMARY KEY (id=?)',
          ]);
        }
      });
    }
  });

  it('prepares no statement with a bare parameter, which SQLite would plan anew at every bind', async () => {
    // SQLite plans with the value bound to a bare LIMIT parameter, or (after an ANALYZE) to
    // a bare parameter compared with an indexed column, and then prepares the statement again
    // whenever that is bound: the claim's walk of 11 levels cost 176 µs a call so, 26–36 µs
    // with `+?` (`unprobed` in sqlite-prepared.ts says more).
    expect(unprobed(`select 'a?', "b?" from t where x = ? and y in (?, ?) limit ?`)).toBe(
      `select 'a?', "b?" from t where x = +? and y in (+?, +?) limit +?`,
    );
    expect(unprobed(`select 'it''s ?' where x = ?`)).toBe(`select 'it''s ?' where x = +?`);
    const { statements } = await t.backend();
    const texts: string[] = [];
    const collect = (value: unknown): void => {
      // a PreparedQuery, of src or of dist (the backend's)
      if (value instanceof Object && typeof (value as { sql?: unknown }).sql === 'string') {
        texts.push((value as { sql: string }).sql);
      } else if (value instanceof Object) Object.values(value).forEach(collect);
    };
    collect(statements);
    withRaw(t.fixture.file, (db) => {
      collect(mapShapes(claimQueries(sqliteDialect).claimable, (b) => new PreparedQuery(db, b)));
      const admin = adminQueries(sqliteDialect);
      collect([new PreparedQuery(db, admin.finishedDue), new PreparedQuery(db, admin.ownDue)]);
    });
    expect(texts.length).toBeGreaterThanOrEqual(20);
    for (const sql of texts) {
      expect(sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, '')).not.toMatch(/(^|[^+])\?/);
    }
    expect(texts.filter((sql) => /\blimit \+\?/i.test(sql)).length).toBeGreaterThanOrEqual(10);
  });

  it('counts as read exactly the runnable, unreserved rows in the range, deferred ones included', async () => {
    const store = await t.store();
    const ids: FateId[] = [];
    for (let i = 0; i < 240; i++) ids.push((await store.seed({ step, opName: `op${i}` })).id);
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
      const due = inside.filter((id) => !deferred.has(id));
      expect(scan.itemsRead).toBe(inside.length);
      expect(scan.ids).toEqual(due);
      expect(scan.ops).toEqual(due.map((id) => `op${ids.indexOf(id)}`));
      expect(scan.nextDeferralAt !== undefined).toBe(inside.some((id) => deferred.has(id)));
      expect(scan.last).toBeUndefined();
    }
  });

  it('pages by rows read: a full page ends at its last row, due or not, and the next goes on after it', async () => {
    const store = await t.store();
    const ids = (
      await store.seedMany(Array.from({ length: 25 }, (_, i) => ({ step, opName: `op${i % 3}` })))
    ).map((r) => r.id);
    const sorted = [...ids].sort();
    // The first four ids in order are deferred: the first page of 4 returns none of them.
    for (const id of sorted.slice(0, 4)) await (await store.reserve(id)).unreserve(60_000);
    const first = await store.scanRunnable(undefined, { limit: 4 });
    expect(first).toMatchObject({ ids: [], ops: [], itemsRead: 4, last: sorted[3] });
    expect(first.nextDeferralAt).toBeGreaterThan(store.now());
    const seen: string[] = [];
    let after = first.last;
    for (;;) {
      const page = await store.scanRunnable(undefined, { limit: 10, after: after as FateId });
      seen.push(...page.ids);
      expect(page.ops).toEqual(page.ids.map((id) => `op${ids.indexOf(id as FateId) % 3}`));
      if (page.last === undefined) {
        expect(page.itemsRead).toBeLessThan(10);
        break;
      }
      expect(page.itemsRead).toBe(10);
      expect(page.last).toBe(page.ids.at(-1));
      after = page.last;
    }
    expect(seen).toEqual(sorted.slice(4));
  });

  it('lists reservations by range, by lock id, and by both', async () => {
    const backend = await t.backend();
    const ids = Array.from({ length: 40 }, () => newFateId()).sort();
    const record = { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' } as const;
    expect(await backend.insertMany(ids.map((id) => ({ id, record })))).toEqual(
      ids.map(() => true),
    );
    const holders = ['a@1', 'b@2'];
    const held = ids.filter((_, i) => i % 2 === 0);
    for (const [i, id] of held.entries()) {
      const reservation = { lockId: holders[i % 2] as string, uuid: `u${i}` };
      expect(await backend.tryReserve(id, reservation)).toMatchObject({ reservation });
    }
    const lockOf = (id: string) => holders[held.indexOf(id as FateId) % 2];
    const range = { start: ids[10] as string, end: ids[30] as string };
    const got = async (filter?: Parameters<typeof backend.reservations>[0]) =>
      (await backend.reservations(filter)).map((r) => r.id);
    expect(await got()).toEqual(held);
    expect(await got({ range })).toEqual(held.filter((id) => inRange(id, range)));
    expect(await got({ lockId: 'b@2' })).toEqual(held.filter((id) => lockOf(id) === 'b@2'));
    expect(await got({ range, lockId: 'a@1' })).toEqual(
      held.filter((id) => inRange(id, range) && lockOf(id) === 'a@1'),
    );
    expect(await got({ lockId: 'nobody' })).toEqual([]);
  });
});
