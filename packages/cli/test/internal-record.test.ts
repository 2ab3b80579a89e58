// `fate show` on the engine's own records (schedules, slots of cluster-wide limits).
import { describe, expect, it } from 'vitest';
import { describeInternal } from '../src/admin/internal-record.js';

describe('fate show: the engine’s own records', () => {
  it('describes a schedule record: pattern, zone, how far it judged, what it left to submit', () => {
    const text = describeInternal({
      kind: 'schedule',
      name: 'nightly',
      pattern: '0 3 * * *',
      timezone: 'Europe/Berlin',
      through: Date.UTC(2026, 0, 1, 2, 0, 0),
      pending: ['a', 'b'],
    });
    expect(text).toBe(
      'schedule "nightly": cron "0 3 * * *" in Europe/Berlin; due times judged through 2026-01-01T02:00:00.000Z; 2 seeded and not yet submitted',
    );
  });

  it('describes a slot, something else of fate’s, and nothing for a user record', () => {
    expect(describeInternal({ kind: 'slot', op: 'charge', index: 2 })).toMatch(
      /^slot 2 of the cluster-wide limit of op "charge"/,
    );
    expect(describeInternal({ kind: 'child', name: 'x', parent: 'p-id' })).toBe(
      'child "x" of p-id (its parent is woken when it finishes)',
    );
    expect(describeInternal({ kind: 'other' })).toBe('fate\'s own record: {"kind":"other"}');
    expect(describeInternal(undefined)).toBeUndefined();
    expect(describeInternal('text')).toBeUndefined();
  });
});
