import { describe, expect, it } from 'vitest';
import { holderVerdict, toReservations } from '../src/sql-records.js';

// The row mappings every SQL store shares, on rows a store's own statements cannot produce
// in one process (a record released by another connection between two statements, a row of
// another holder in a listing).
describe('sql-common: holderVerdict, what a failed reserve means', () => {
  const mine = { lockId: 'engine@1', uuid: 'u1' };

  it('says absent for no row, held for another reservation', () => {
    expect(holderVerdict(undefined, mine)).toBe('absent');
    expect(holderVerdict({ res_lock: 'engine@2', res_uuid: 'u1' }, mine)).toBe('held');
    expect(holderVerdict({ res_lock: 'engine@1', res_uuid: 'u2' }, mine)).toBe('held');
  });

  it('says free (try again) for a record released, or held by this very reservation, since the reserve', () => {
    expect(holderVerdict({ res_lock: null, res_uuid: null }, mine)).toBe('free');
    expect(holderVerdict({ res_lock: 'engine@1', res_uuid: 'u1' }, mine)).toBe('free');
  });
});

describe('sql-common: toReservations', () => {
  it('keeps held rows only, and only the given holder’s when one is named', () => {
    const rows = [
      { id: 'a', res_lock: 'x@1', res_uuid: 'ua' },
      { id: 'b', res_lock: null, res_uuid: null },
      { id: 'c', res_lock: 'y@1', res_uuid: 'uc' },
    ];
    expect(toReservations(rows)).toEqual([
      { id: 'a', reservation: { lockId: 'x@1', uuid: 'ua' } },
      { id: 'c', reservation: { lockId: 'y@1', uuid: 'uc' } },
    ]);
    expect(toReservations(rows, 'y@1')).toEqual([
      { id: 'c', reservation: { lockId: 'y@1', uuid: 'uc' } },
    ]);
  });
});
