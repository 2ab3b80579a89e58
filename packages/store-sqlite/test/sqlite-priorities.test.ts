import { newFateId, Status } from '@fate/core';
import { SCHEMA_VERSION } from '@fate/store-sqlite';
import { describe, expect, it } from 'vitest';
import { step, useSqlite, withRaw } from './sqlite-harness.js';
import { SCHEMA_2 } from './sqlite-schema-2.js';

const t = useSqlite();

describe('sqlite backend: priorities (issue 25)', () => {
  it('migrates a file written before priorities: its records run as 0, new ones above them first', async () => {
    const old = [newFateId(), newFateId()].sort();
    withRaw(t.fixture.file, (db) => {
      db.exec(SCHEMA_2);
      const insert = db.prepare(
        'INSERT INTO transactions (id, status, stack, info) VALUES (?, ?, ?, ?)',
      );
      for (const id of old)
        insert.run(id, Status.SUBMITTED, '[]', JSON.stringify({ opName: 'old' }));
    });
    const store = await t.store();
    const version = withRaw(t.fixture.file, (db) =>
      db.prepare("SELECT value FROM fate_meta WHERE key = 'schema_version'").get(),
    );
    expect(version).toEqual({ value: String(SCHEMA_VERSION) });
    for (const id of old) expect((await store.read(id)).priority).toBe(0);
    const { id: urgent } = await store.seed({ step, opName: 'new', priority: 3 });
    const { id: later } = await store.seed({ step, opName: 'new', priority: -2 });
    expect((await store.scanRunnable()).ids).toEqual([urgent, ...old, later]);
    const { claimed } = await store.claimRunnable(undefined, { limit: 2 });
    expect(claimed.map((h) => h.id)).toEqual([urgent, old[0]]);
  });
});
