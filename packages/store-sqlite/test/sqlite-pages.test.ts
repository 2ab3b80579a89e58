import { statSync } from 'node:fs';
import { parseFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { step, useSqlite, withRaw } from './sqlite-harness.js';

const t = useSqlite();

/** WAL frame size at SQLite's default 4 KB page: a 24-byte header and the page. */
const FRAME_BYTES = 24 + 4_096;

/** Pages `fn` wrote to the WAL, from an empty one (a checkpoint truncates it first). */
async function pagesWritten(file: string, fn: () => Promise<unknown>): Promise<number> {
  withRaw(file, (db) => db.pragma('wal_checkpoint(TRUNCATE)'));
  expect(statSync(`${file}-wal`).size).toBe(0);
  await fn();
  return Math.max(0, statSync(`${file}-wal`).size - 32) / FRAME_BYTES;
}

describe('sqlite backend: the rows of one claim share pages', () => {
  it('a claim of 16 and their 16 finishing writes write a few pages, not a page a row', async () => {
    const store = await t.store();
    // seeded in chunks, in no id order (ids are random): rows land in id order only if the
    // table is kept in id order (issue 23: a rowid table keeps insertion order)
    for (let i = 0; i < 4; i++) {
      await store.seedMany(Array.from({ length: 500 }, () => ({ step, opName: 'page' })));
    }
    const backend = await t.backend();
    const reservations = Array.from({ length: 16 }, (_, i) => ({ lockId: 'w@1', uuid: `u${i}` }));
    let claimed: Awaited<ReturnType<NonNullable<typeof backend.claimMany>>> = [];
    const claimPages = await pagesWritten(t.fixture.file, async () => {
      claimed = (await backend.claimMany?.(undefined, reservations)) ?? [];
    });
    expect(claimed).toHaveLength(16);
    let applied: boolean[] = [];
    const writePages = await pagesWritten(t.fixture.file, async () => {
      applied = await Promise.all(
        // the i-th record claimed holds the i-th reservation
        claimed.map((c, i) =>
          backend.write(parseFateId(c.id), reservations[i] as (typeof reservations)[number], {
            status: Status.SUCCESSFUL,
            stack: '[]',
          }),
        ),
      );
    });
    expect(applied).toEqual(claimed.map(() => true));
    // Measured: 5 and 4 pages in id order; 20 and 19 as a rowid table (a page a row of the
    // table, and the indexes' few)
    expect(claimPages).toBeLessThanOrEqual(8);
    expect(writePages).toBeLessThanOrEqual(8);
  });
});
