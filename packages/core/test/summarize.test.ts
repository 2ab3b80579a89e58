// `list` rows (`summarize.ts`) and the payload limit (`payload-size.ts`): a record summarized
// exactly (and listed with why when it does not decode), filters checked and applied again,
// rows in id order; a record refused only when its UTF-8 bytes pass the limit.
import { describe, expect, it } from 'vitest';
import { checkPayloadSize } from '../src/guard/payload-size.js';
import { checkListFilter, summarize, summarizeRows } from '../src/guard/summarize.js';
import { type FateId, newFateId, type StoredRecord } from '../src/index.js';
import { code } from './test-steps.js';

const stored = (over: Partial<StoredRecord> = {}): StoredRecord => ({
  status: 'IN_PROGRESS',
  stack: JSON.stringify([
    { type: 'first', state: {} },
    { type: 'second', state: {} },
  ]),
  info: JSON.stringify({ opName: 'op', created: 123 }),
  reservation: null,
  deferUntil: 0,
  ...over,
});

describe('summarize', () => {
  it('gives status, depth, top step, op and creation, and a reservation only when held', () => {
    const id = newFateId();
    expect(summarize(id, stored())).toStrictEqual({
      id,
      deferUntil: 0,
      priority: 0,
      status: 'IN_PROGRESS',
      stackDepth: 2,
      top: 'second',
      opName: 'op',
      created: 123,
    });
    const reservation = { lockId: 'l', uuid: 'u' };
    const held = summarize(
      id,
      stored({ reservation, priority: 4, deferUntil: 9, stack: '[]', info: '{}' }),
    );
    expect(held).toStrictEqual({
      id,
      deferUntil: 9,
      priority: 4,
      reservation,
      status: 'IN_PROGRESS',
      stackDepth: 0,
    });
  });

  it('lists a record that does not decode as UNKNOWN, saying why', () => {
    const id = newFateId();
    const row = summarize(id, stored({ info: '{not json' }));
    expect(row).toMatchObject({ id, status: 'UNKNOWN', stackDepth: 0, deferUntil: 0, priority: 0 });
    expect(row.corrupt).toMatch(/info/);
    expect(summarize(id, stored({ status: 'DONE' })).status).toBe('UNKNOWN');
  });
});

describe('list filters', () => {
  it('checks the op name and every status, and asks for all statuses when none given', () => {
    expect(checkListFilter({})).toBeUndefined();
    expect(checkListFilter({ statuses: ['FAILED', 'FAILED', 'UNKNOWN'] })).toEqual(
      new Set(['FAILED', 'UNKNOWN']),
    );
    for (const bad of [{ opName: 5 }, { statuses: ['DONE'] }]) {
      expect(
        code(() => checkListFilter(bad as never)),
        JSON.stringify(bad),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('filters rows again by status and op, and gives them in id order', () => {
    const ids = ['c', 'a', 'b', 'd'].map(
      (c) => `${c.repeat(8)}-0000-4000-8000-000000000000` as FateId,
    );
    const rows = [
      { id: ids[0] as string, record: stored() },
      { id: ids[1] as string, record: stored({ status: 'FAILED' }) },
      { id: ids[2] as string, record: stored() },
      { id: ids[3] as string, record: stored({ info: JSON.stringify({ opName: 'other' }) }) },
    ];
    expect(summarizeRows(rows, undefined, undefined).map((r) => r.id)).toEqual([
      ids[1],
      ids[2],
      ids[0],
      ids[3],
    ]);
    expect(summarizeRows(rows, new Set(['IN_PROGRESS']), 'op').map((r) => r.id)).toEqual([
      ids[2],
      ids[0],
    ]);
    expect(summarizeRows(rows, new Set(['FAILED']), undefined).map((r) => r.id)).toEqual([ids[1]]);
  });
});

describe('checkPayloadSize', () => {
  it('counts UTF-8 bytes of stack and info together, refusing only past the limit', () => {
    // '€' is one UTF-16 unit and three UTF-8 bytes
    expect(code(() => checkPayloadSize('x', '€€', '', 6))).toBe('ok');
    expect(code(() => checkPayloadSize('x', '€€', '', 5))).toBe('FATE_PAYLOAD_TOO_LARGE');
    expect(code(() => checkPayloadSize('x', '€', '€', 5))).toBe('FATE_PAYLOAD_TOO_LARGE');
    expect(code(() => checkPayloadSize('x', 'abcd', 'ef', 6))).toBe('ok');
    expect(code(() => checkPayloadSize('x', 'abcd', 'efg', 6))).toBe('FATE_PAYLOAD_TOO_LARGE');
    expect(() => checkPayloadSize('id-1', 'abcd', 'efg', 6)).toThrow(
      "id-1 would store 7 bytes; this backend's limit is 6",
    );
  });
});
