import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readInstances } from '../src/sqlite-liveness.js';
import type { Statements } from '../src/sqlite-statements.js';

// The prune of lapsed liveness rows is best effort only against a busy file: any other
// failure of the delete (a read-only file, an I/O error) is the store's and is thrown.
describe('sqlite backend: readInstances prunes lapsed rows, best effort only when busy', () => {
  const rows = [
    { lock_id: 'live@1', state: '{}', lapsed: 0 },
    { lock_id: 'gone@1', state: '{}', lapsed: 1 },
  ];
  const statements = (forget: () => unknown) =>
    ({ liveness: { all: () => rows }, forget: { run: forget } }) as unknown as Statements;

  it('answers the live records and prunes when something lapsed', () => {
    let pruned = 0;
    const records = readInstances(statements(() => pruned++));
    expect(records).toEqual([{ lockId: 'live@1', state: '{}' }]);
    expect(pruned).toBe(1);
  });

  it('answers anyway when the file is busy', () => {
    const busy = () => {
      throw new Database.SqliteError('database is locked', 'SQLITE_BUSY');
    };
    expect(readInstances(statements(busy))).toEqual([{ lockId: 'live@1', state: '{}' }]);
  });

  it('throws any other failure of the prune', () => {
    const ioError = () => {
      throw new Database.SqliteError('disk I/O error', 'SQLITE_IOERR');
    };
    expect(() => readInstances(statements(ioError))).toThrow(/disk I\/O error/);
  });
});
