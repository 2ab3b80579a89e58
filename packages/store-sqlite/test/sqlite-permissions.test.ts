import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@fate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { step, useSqlite } from './sqlite-harness.js';

const t = useSqlite();
const modeOf = (path: string) => statSync(path).mode & 0o777;
const companions = (db: string) => [db, `${db}-wal`, `${db}-shm`, `${db}-wakeup`];

/**
 * The modes of `db` and its companions while a client that seeded one transaction holds it
 * open (SQLite removes `-wal` and `-shm` when the last connection closes).
 */
async function modesInUse(db: string): Promise<number[]> {
  const store = await openStore(`sqlite:${db}`);
  try {
    await store.seed({ step, opName: 'op' });
    return companions(db).map((file) => {
      expect(existsSync(file), file).toBe(true);
      return modeOf(file);
    });
  } finally {
    await store.close();
  }
}

// README "Security": the store is its files; who may write them is a store-writer. fate makes
// them the way SQLite does (0644 less the umask; companions with the database's mode), so the
// process's umask or a database file made beforehand decides who may read and write.
describe('sqlite backend: the files a store is made of', () => {
  const before = process.umask();
  afterEach(() => {
    process.umask(before);
  });

  it('makes a new store private under umask 077: directories 0700, every file 0600', async () => {
    process.umask(0o077);
    const dir = join(t.fixture.dir, 'private');
    const db = join(dir, 'fate.db');
    expect(await modesInUse(db)).toEqual([0o600, 0o600, 0o600, 0o600]);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('gives the WAL, shared memory and wake-up files the mode of a database made beforehand', async () => {
    process.umask(0o077);
    const db = join(t.fixture.dir, 'group.db');
    writeFileSync(db, '');
    chmodSync(db, 0o660);
    expect(await modesInUse(db)).toEqual([0o660, 0o660, 0o660, 0o660]);
  });
});
