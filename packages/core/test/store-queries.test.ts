// The guard's queries (`store-queries.ts`) as units: a list query checked and put in the
// backend's form, a row matched against it, rows made public, the full-read fallbacks of
// listPage and counts, and counts folded from the backend's groups.
import { describe, expect, it } from 'vitest';
import type { BackendCaller } from '../src/guard/backend-caller.js';
import {
  checkListQuery,
  foldCounts,
  listPageByFullRead,
  recordRow,
  rowMatches,
  toTxRow,
} from '../src/guard/store-queries.js';
import type { StoredRecord } from '../src/index.js';
import { code } from './test-steps.js';

const A = '10000000-0000-4000-8000-000000000000';
const B = '20000000-0000-4000-8000-000000000000';
const C = '30000000-0000-4000-8000-000000000000';
const row = (over: Record<string, unknown> = {}) => ({
  id: B,
  status: 'SUBMITTED',
  op: 'op',
  reservation: null as { lockId: string; uuid: string } | null,
  deferUntil: 0,
  ...over,
});

describe('checkListQuery', () => {
  it('puts a query in the backend form, 100 rows unless told, only what was asked', () => {
    expect(checkListQuery({})).toStrictEqual({ limit: 100 });
    expect(
      checkListQuery({
        limit: 10_000,
        statuses: ['FAILED', 'FAILED'],
        opName: 'op',
        reserved: false,
        holder: 'h',
        deferred: true,
        after: A,
      }),
    ).toStrictEqual({
      limit: 10_000,
      statuses: new Set(['FAILED']),
      op: 'op',
      reserved: false,
      holder: 'h',
      deferred: true,
      after: A,
    });
  });

  it('refuses each malformed part', () => {
    for (const query of [
      null,
      'q',
      { limit: 0 },
      { limit: 10_001 },
      { limit: 2.5 },
      { after: 'x' },
      { opName: 1 },
      { holder: 1 },
      { reserved: 'yes' },
      { deferred: 1 },
      { statuses: ['UNKNOWN'] },
    ]) {
      expect(
        code(() => checkListQuery(query as never)),
        JSON.stringify(query),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });
});

describe('rowMatches', () => {
  const q = (over: Record<string, unknown>) => ({ limit: 100, ...over });
  it('matches each filter alone, the holder by its lock id or its instance prefix', () => {
    expect(rowMatches(row(), q({ after: A }), 0)).toBe(true);
    expect(rowMatches(row(), q({ after: B }), 0)).toBe(false);
    expect(rowMatches(row(), q({ statuses: new Set(['SUBMITTED']) }), 0)).toBe(true);
    expect(rowMatches(row(), q({ statuses: new Set(['FAILED']) }), 0)).toBe(false);
    expect(rowMatches(row(), q({ op: 'op' }), 0)).toBe(true);
    expect(rowMatches(row(), q({ op: 'other' }), 0)).toBe(false);
    const held = row({ reservation: { lockId: 'node-1@1234', uuid: 'u' } });
    expect(rowMatches(held, q({ reserved: true }), 0)).toBe(true);
    expect(rowMatches(held, q({ reserved: false }), 0)).toBe(false);
    expect(rowMatches(row(), q({ reserved: false }), 0)).toBe(true);
    expect(rowMatches(held, q({ holder: 'node-1@1234' }), 0)).toBe(true);
    expect(rowMatches(held, q({ holder: 'node-1' }), 0)).toBe(true);
    expect(rowMatches(held, q({ holder: 'node' }), 0)).toBe(false);
    expect(rowMatches(row(), q({ holder: 'node-1' }), 0)).toBe(false);
    const later = row({ deferUntil: 50 });
    expect(rowMatches(later, q({ deferred: true }), 49)).toBe(true);
    expect(rowMatches(later, q({ deferred: true }), 50)).toBe(false);
    expect(rowMatches(later, q({ deferred: false }), 50)).toBe(true);
  });
});

describe('rows made public', () => {
  it('decodes the status, naming a corrupt one, and keeps only what is set', () => {
    expect(toTxRow(row({ op: '' }))).toStrictEqual({
      id: B,
      status: 'SUBMITTED',
      deferUntil: 0,
      priority: 0,
    });
    const full = toTxRow(
      row({ reservation: { lockId: 'l', uuid: 'u' }, priority: 3, finishedAt: 9, op: 'op' }),
    );
    expect(full).toStrictEqual({
      id: B,
      status: 'SUBMITTED',
      opName: 'op',
      reservation: { lockId: 'l', uuid: 'u' },
      deferUntil: 0,
      priority: 3,
      finishedAt: 9,
    });
    const bad = toTxRow(row({ status: 'DONE' }));
    expect([bad.status, typeof bad.corrupt]).toEqual(['UNKNOWN', 'string']);
  });

  it('reads the op of a stored record from its info, none when the info does not decode', () => {
    const stored = (info: string, priority?: number): StoredRecord => ({
      status: 'SUBMITTED',
      stack: '[]',
      info,
      reservation: null,
      deferUntil: 0,
      ...(priority === undefined ? {} : { priority }),
    });
    expect(recordRow(A, stored('{"opName":"op"}', 2))).toStrictEqual({
      id: A,
      status: 'SUBMITTED',
      op: 'op',
      reservation: null,
      deferUntil: 0,
      priority: 2,
    });
    expect(recordRow(A, stored('{}', 0))).not.toHaveProperty('priority');
    expect(recordRow(A, stored('{}')).op).toBe('');
    expect(recordRow(A, stored('{'))).toMatchObject({ op: '' });
  });
});

describe('the full-read fallbacks', () => {
  const records = [C, A, B].map((id, i) => ({
    id,
    record: {
      status: i === 2 ? 'FAILED' : 'SUBMITTED',
      stack: '[]',
      info: '{"opName":"op"}',
      reservation: null,
      deferUntil: 0,
    } as StoredRecord,
  }));
  const caller = {
    retried: async (_what: string, fn: (b: unknown) => Promise<unknown>) =>
      fn({ list: async () => records }),
  } as unknown as BackendCaller;

  it('pages in id order, naming the last row only when more remain', async () => {
    const first = await listPageByFullRead(caller, { limit: 2 }, 0);
    expect(first.rows.map((r) => r.id)).toEqual([A, B]);
    expect(first.last).toBe(B);
    const all = await listPageByFullRead(caller, { limit: 3 }, 0);
    expect(all.rows.map((r) => r.id)).toEqual([A, B, C]);
    expect(all).not.toHaveProperty('last');
    const after = await listPageByFullRead(caller, { limit: 5, after: A }, 0);
    expect(after.rows.map((r) => r.id)).toEqual([B, C]);
  });
});

describe('foldCounts', () => {
  it('adds the groups by status and op, skipping counts that are no positive integer', () => {
    const counts = foldCounts([
      { status: 'SUBMITTED', op: 'b', count: 2 },
      { status: 'SUBMITTED', op: 'a', count: 3 },
      { status: 'FAILED', op: 'a', count: 1 },
      { status: 'FAILED', op: 'b', count: 0 },
      { status: 'FAILED', op: 'b', count: 1.5 },
      { status: 'FAILED', op: 'b', count: -4 },
    ]);
    expect(counts.total).toBe(6);
    expect(counts.byStatus).toMatchObject({ SUBMITTED: 5, FAILED: 1, NEW: 0, SUCCESSFUL: 0 });
    expect(counts.byOp).toEqual({ a: 4, b: 2 });
    expect(counts.byOpStatus).toEqual([
      { opName: 'a', status: 'FAILED', count: 1 },
      { opName: 'a', status: 'SUBMITTED', count: 3 },
      { opName: 'b', status: 'SUBMITTED', count: 2 },
    ]);
  });
});
