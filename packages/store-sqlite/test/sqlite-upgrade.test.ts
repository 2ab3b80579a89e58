import { readFileSync } from 'node:fs';
import { FateError, FateErrorCode, parseFateId } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { useSqlite, withRaw } from './sqlite-harness.js';
import { SCHEMA_6 } from './sqlite-schema-6.js';

const t = useSqlite();

/** The one record of `SCHEMA_6`. */
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

const versionOf = (file: string) =>
  withRaw(file, (db) => db.prepare('SELECT value FROM fate_meta').pluck().get());

// Schema 7 rebuilds the transactions table (SQLite cannot make a table WITHOUT ROWID in
// place): what a user added to the file beside fate's own must come through, and what
// cannot must fail the open plainly, leaving the file as it was.
describe('sqlite backend: upgrading a schema-6 file that holds objects of its own', () => {
  it('keeps a view over transactions, and it reads the rebuilt table', async () => {
    withRaw(t.fixture.file, (db) => {
      db.exec(SCHEMA_6);
      db.exec(`CREATE VIEW pending AS SELECT id FROM transactions WHERE status = 'SUBMITTED'`);
    });
    const backend = await t.backend();
    expect(await backend.counts?.()).toEqual([{ status: 'SUBMITTED', op: 'a', count: 1 }]);
    withRaw(t.fixture.file, (db) =>
      expect(db.prepare('SELECT count(*) FROM pending').pluck().get()).toBe(1),
    );
  });

  it("keeps another table's trigger that writes transactions, and it still does", async () => {
    withRaw(t.fixture.file, (db) => {
      db.exec(SCHEMA_6);
      db.exec(`CREATE TABLE purge (id text);
        CREATE TRIGGER purge_t AFTER INSERT ON purge BEGIN DELETE FROM transactions WHERE id = new.id; END`);
    });
    const backend = await t.backend();
    withRaw(t.fixture.file, (db) => db.prepare('INSERT INTO purge (id) VALUES (?)').run(ID));
    expect(await backend.counts?.()).toEqual([]);
  });

  it('keeps an index and a trigger of its own on transactions', async () => {
    withRaw(t.fixture.file, (db) => {
      db.exec(SCHEMA_6);
      db.exec(`CREATE INDEX my_by_op ON transactions (op, status);
        CREATE TABLE audit (id text);
        CREATE TRIGGER my_audit AFTER DELETE ON transactions BEGIN INSERT INTO audit VALUES (old.id); END`);
    });
    const backend = await t.backend();
    const id = parseFateId(ID);
    const held = { lockId: 'w@1', uuid: 'u1' };
    expect(await backend.tryReserve(id, held)).toMatchObject({ status: 'SUBMITTED' });
    expect(await backend.write(id, held, { delete: true })).toBe(true);
    withRaw(t.fixture.file, (db) => {
      const names = db
        .prepare(`SELECT name FROM sqlite_schema WHERE name IN ('my_by_op', 'my_audit')`)
        .pluck()
        .all();
      expect(names.sort()).toEqual(['my_audit', 'my_by_op']);
      expect(db.prepare('SELECT id FROM audit').pluck().all()).toEqual([ID]);
    });
  });

  it('fails the open as a configuration error on what it cannot carry over, the file unchanged', async () => {
    // A NULL id: impossible in a fate file (STRICT refuses it), so the table is made without
    // STRICT here; the rebuilt table refuses it.
    withRaw(t.fixture.file, (db) => {
      db.exec(
        SCHEMA_6.replace(
          `"priority" integer default 0 not null) strict;`,
          `"priority" integer default 0 not null);`,
        ),
      );
      db.prepare(
        `INSERT INTO transactions (id, status, stack, info) VALUES (NULL, 'SUBMITTED', '[]', '{}')`,
      ).run();
      db.pragma('wal_checkpoint(TRUNCATE)');
    });
    const before = readFileSync(t.fixture.file);
    const error = await t.backend().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FateError);
    expect(error).toMatchObject({ code: FateErrorCode.STORE_CONFIG });
    expect((error as Error).message).toMatch(/upgrading to schema 7 .*NOT NULL/);
    expect(versionOf(t.fixture.file)).toBe('6');
    withRaw(t.fixture.file, (db) => db.pragma('wal_checkpoint(TRUNCATE)'));
    expect(readFileSync(t.fixture.file).equals(before)).toBe(true);
  });
});
