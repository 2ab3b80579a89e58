import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresClock } from '../src/postgres-clock.js';
import { heartbeat, readInstances } from '../src/postgres-liveness.js';
import type { PostgresStatements } from '../src/postgres-statements.js';

const HOUR = 3_600_000;

/** Statements that answer as the server would: its clock an hour ahead of this process's. */
function fakeServer() {
  const calls: string[] = [];
  /** A statement that records its call and answers `rows`. */
  const answers = (name: string, rows: () => unknown) => async () => {
    calls.push(name);
    return rows();
  };
  const serverNow = () => [{ now: Date.now() + HOUR }];
  const statements = {
    heartbeat: { rows: answers('heartbeat', serverNow) },
    now: { rows: answers('now', serverNow) },
    liveness: {
      rows: async () => [
        { lock_id: 'live@1', state: '{}', lapsed: false },
        { lock_id: 'gone@1', state: '{}', lapsed: true },
      ],
    },
    forget: { changed: answers('forget', () => 1) },
  } as unknown as PostgresStatements;
  return { connection: { control: {} as pg.Pool, statements }, calls };
}

describe('postgres backend: liveness', () => {
  it('takes in the server clock a heartbeat’s reply carries (no read of the clock of its own)', async () => {
    const { connection, calls } = fakeServer();
    const clock = new PostgresClock();
    await heartbeat(connection, clock, { lockId: 'e@1', state: '{}', ttlMs: 10_000.5 });
    const now = clock.now(connection);
    expect(Math.abs(now - (Date.now() + HOUR))).toBeLessThan(1_000);
    expect(calls).toEqual(['heartbeat']);
  });

  it('answers the live records and prunes the lapsed rows', async () => {
    const { connection, calls } = fakeServer();
    expect(await readInstances(connection)).toEqual([{ lockId: 'live@1', state: '{}' }]);
    expect(calls).toEqual(['forget']);
  });
});
