import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/sqlite-group-commit.js';

// The group commit of the SQLite store (issue 23): what it promises each write of a batch.
describe('GroupCommit', () => {
  let dir: string;
  let db: Database.Database;
  let other: Database.Database;
  const row = (k: string) => db.prepare('INSERT INTO t (k) VALUES (?)').run(k).changes;
  const rows = (d = other) =>
    (d.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fate-group-'));
    db = new Database(join(dir, 'db'), { timeout: 10 });
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    other = new Database(join(dir, 'db'), { timeout: 10 });
  });

  afterEach(() => {
    other.close();
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the writes of one turn in one transaction, each answered with its own result', async () => {
    const group = new GroupCommit(db, 1_000, () => undefined);
    const inTransaction: boolean[] = [];
    const write = (k: string) =>
      group.submit(() => {
        inTransaction.push(db.inTransaction);
        return `${k}:${row(k)}`;
      });
    expect(await Promise.all(['a', 'b', 'c'].map(write))).toEqual(['a:1', 'b:1', 'c:1']);
    expect(inTransaction).toEqual([true, true, true]);
    expect(rows()).toEqual(['a', 'b', 'c']);
    // a write alone runs as it would without the group: no transaction of its own
    expect(await write('d')).toBe('d:1');
    expect(inTransaction[3]).toBe(false);
  });

  it('rolls back only the write that threw: its neighbours commit', async () => {
    row('taken');
    const group = new GroupCommit(db, 1_000, () => undefined);
    const results = await Promise.allSettled([
      group.submit(() => row('x')),
      group.submit(() => {
        row('y'); // applied, then undone with its savepoint
        return row('taken'); // a constraint error
      }),
      group.submit(() => row('z')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(rows()).toEqual(['taken', 'x', 'z']);
    // a write alone: its error is its own too, and the group goes on
    await expect(group.submit(() => row('taken'))).rejects.toThrow(/UNIQUE/);
    expect(await group.submit(() => row('w'))).toBe(1);
  });

  it('wakes once per batch, after the commit (the writes are visible to another connection)', async () => {
    const seen: string[][] = [];
    const group = new GroupCommit(db, 1_000, () => seen.push(rows()));
    await Promise.all([
      group.submit((wake) => {
        wake();
        return row('a');
      }),
      group.submit((wake) => {
        wake();
        return row('b');
      }),
      group.submit(() => row('c')),
    ]);
    expect(seen).toEqual([['a', 'b', 'c']]);
    await group.submit(() => row('d'));
    expect(seen).toHaveLength(1); // no write asked for a wake-up
  });

  it('waits out another process holding the file, then commits the whole batch', async () => {
    other.exec('BEGIN IMMEDIATE');
    const group = new GroupCommit(db, 5_000, () => undefined);
    const done = Promise.all([group.submit(() => row('a')), group.submit(() => row('b'))]);
    await new Promise((r) => setTimeout(r, 100));
    other.exec('COMMIT');
    expect(await done).toEqual([1, 1]);
    expect(rows()).toEqual(['a', 'b']);
  });

  it('fails every write of a batch the file stays locked for past the timeout, and applies none', async () => {
    other.exec('BEGIN IMMEDIATE');
    const group = new GroupCommit(db, 100, () => undefined);
    const results = await Promise.allSettled([
      group.submit(() => row('a')),
      group.submit(() => row('b')),
    ]);
    other.exec('COMMIT');
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(rows()).toEqual([]);
  });

  it('fails the whole batch, none applied, when one write made SQLite end its transaction (disk full)', async () => {
    row('x');
    db.pragma('cache_size = 10'); // a big write spills to the WAL inside the transaction
    db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + 40}`);
    const big = db.prepare('INSERT INTO t (k) VALUES (?)');
    const group = new GroupCommit(db, 1_000, () => undefined);
    const results = await Promise.allSettled([
      group.submit(() => row('a')),
      group.submit(() => big.run('b'.repeat(4096 * 200)).changes), // SQLITE_FULL
      group.submit(() => row('c')),
      group.submit(() => row('d')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_FULL' });
    expect(rows()).toEqual(['x']); // neither the write before it nor those after it applied
  });

  it('writes batches in the order they were sent, a busy one holding the next', async () => {
    other.exec('BEGIN IMMEDIATE'); // another process holds the write lock
    const group = new GroupCommit(db, 5_000, () => undefined);
    const ran: string[] = [];
    const write = (k: string) =>
      group.submit(() => {
        ran.push(k);
        return row(k);
      });
    const a = write('a'); // waits out the lock between attempts
    await new Promise((r) => setTimeout(r, 60));
    other.exec('COMMIT');
    const b = write('b'); // the next batch, sent while the first sleeps
    await group.drain(); // as close does: both answered before the file closes
    db.close();
    expect(await Promise.all([a, b])).toEqual([1, 1]);
    expect(ran.filter((k, i) => ran.indexOf(k) === i)).toEqual(['a', 'b']);
    expect(rows()).toEqual(['a', 'b']);
  });

  it('drains before close: a write submitted just before is answered, not lost', async () => {
    const group = new GroupCommit(db, 1_000, () => undefined);
    const write = group.submit(() => row('a'));
    await group.drain();
    db.close();
    expect(await write).toBe(1);
    expect(rows()).toEqual(['a']);
    // after close: rejected, not hung
    await expect(group.submit(() => 1)).rejects.toMatchObject({ code: 'FATE_CLOSED' });
  });
});
