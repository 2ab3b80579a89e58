import { describe, expect, it } from 'vitest';
import {
  decodeInstanceState,
  encodeInstanceState,
  type InstanceState,
  LeaseObserver,
  poolsOf,
} from '../src/guard/lease-observer.js';

const rec = (lockId: string, beat: number, extra: object = {}) => ({
  lockId,
  state: JSON.stringify({ beat, ...extra }),
});

describe('LeaseObserver', () => {
  it('judges a holder lapsed only after watching it not renew for a full timeout', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('a', 1)], 0);
    o.observe([rec('a', 1)], 400);
    o.observe([rec('a', 1)], 800);
    expect(o.verdict('a', 800)).toBe('live');
    o.observe([rec('a', 1)], 1_000);
    expect(o.verdict('a', 1_000)).toBe('lapsed');
  });

  it('ignores a read sent before one it took in already, however late its reply came', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('a', 1)], 10, 0);
    o.observe([rec('a', 2), rec('b', 1, { group: 'g' })], 40, 30); // b registered at 20
    o.observe([rec('a', 1)], 50, 15); // sent before b registered, answered last
    expect(o.live(50)).toEqual([
      { lockId: 'a', group: undefined },
      { lockId: 'b', group: 'g' },
    ]);
    // a's beat 1 again is no renewal: a renewed when beat 2 was seen, at 40
    expect(o.verdict('a', 1_039)).toBe('live');
    expect(o.verdict('a', 1_040)).toBe('lapsed');
  });

  it('counts from the last renewal it saw', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('a', 1)], 0);
    o.observe([rec('a', 2)], 400);
    o.observe([rec('a', 2)], 800);
    o.observe([rec('a', 2)], 1_200);
    expect(o.verdict('a', 1_200)).toBe('live');
    expect(o.verdict('a', 1_400)).toBe('lapsed');
  });

  it('starts afresh after a gap in its own observations (a pause, an outage)', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('a', 1)], 0);
    o.observe([rec('a', 1)], 5_000); // nothing seen for 5 s: the holder could not renew
    expect(o.verdict('a', 5_000)).toBe('live');
    o.observe([rec('a', 1)], 5_400);
    o.observe([rec('a', 1)], 5_800);
    expect(o.verdict('a', 5_800)).toBe('live');
    o.observe([rec('a', 1)], 6_000);
    expect(o.verdict('a', 6_000)).toBe('lapsed');
  });

  it('starts afresh after its own heartbeat failed, even without a gap', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('a', 1)], 0);
    o.observe([rec('a', 1)], 400);
    o.observe([rec('a', 1)], 800);
    o.interrupted();
    o.observe([rec('a', 1)], 1_100);
    expect(o.verdict('a', 1_100)).toBe('live');
    o.observe([rec('a', 1)], 1_500);
    o.observe([rec('a', 1)], 1_900);
    o.observe([rec('a', 1)], 2_100);
    expect(o.verdict('a', 2_100)).toBe('lapsed');
  });

  it("uses the holder's declared timeout", () => {
    const o = new LeaseObserver(10_000, 500);
    o.observe([rec('a', 1, { timeoutMs: 300 })], 0);
    o.observe([rec('a', 1, { timeoutMs: 300 })], 300);
    expect(o.verdict('a', 300)).toBe('lapsed');
  });

  it('judges a tombstone gone at once and leaves it out of the live', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('a', 1), rec('b', 7, { gone: true })], 0);
    expect(o.verdict('b', 0)).toBe('gone');
    expect(o.live(0).map((l) => l.lockId)).toEqual(['a']);
  });

  it('watches a holder it never saw a record of from the moment it is tracked', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([], 0);
    o.track('ghost', 0);
    o.observe([], 400);
    expect(o.verdict('ghost', 400)).toBe('live');
    o.observe([], 800);
    o.observe([], 1_000);
    expect(o.verdict('ghost', 1_000)).toBe('lapsed');
  });

  it('lists as live only the records still in the store, with their group', () => {
    const o = new LeaseObserver(1_000, 500);
    o.observe([rec('b', 1, { group: '*' }), rec('a', 1)], 0);
    o.observe([rec('b', 2, { group: '*' })], 100);
    expect(o.live(100)).toEqual([{ lockId: 'b', group: '*' }]);
  });
});

describe('a liveness record decoded for people', () => {
  const pool = { name: 'default', workers: 4, busy: 1, idle: 3, queued: 0 };

  it('decodes only an object with a numeric beat', () => {
    expect(decodeInstanceState('{"beat":3,"group":"g","gone":true,"at":5}')).toEqual({
      beat: 3,
      group: 'g',
      gone: true,
      at: 5,
    });
    for (const text of ['', 'not json', 'null', '7', '"beat"', '[]', '{"beat":"3"}', '{}']) {
      expect(decodeInstanceState(text), text).toBeUndefined();
    }
    expect(decodeInstanceState(encodeInstanceState({ beat: 0, timeoutMs: 9 }))).toEqual({
      beat: 0,
      timeoutMs: 9,
    });
  });

  it('keeps pools only when every one has a name and four non-negative integer counts', () => {
    expect(poolsOf(undefined)).toBeUndefined();
    expect(poolsOf({ beat: 1 })).toBeUndefined();
    expect(poolsOf({ beat: 1, pools: [] })).toEqual([]);
    expect(poolsOf({ beat: 1, pools: [pool, { ...pool, name: 'b', queued: 9 }] })).toEqual([
      pool,
      { ...pool, name: 'b', queued: 9 },
    ]);
    const bad: unknown[] = [
      'default',
      null,
      { ...pool, name: 7 },
      { ...pool, workers: -1 },
      { ...pool, busy: 1.5 },
      { ...pool, idle: '3' },
      { ...pool, queued: Number.MAX_SAFE_INTEGER + 1 },
      { name: 'default', workers: 4, busy: 1, idle: 3 },
    ];
    for (const p of bad) {
      const state = { beat: 1, pools: [pool, p] } as unknown as InstanceState;
      expect(poolsOf(state), JSON.stringify(p)).toBeUndefined();
    }
    expect(poolsOf({ beat: 1, pools: 'x' } as unknown as InstanceState)).toBeUndefined();
    expect(poolsOf({ beat: 1, pools: [{ ...pool, workers: 0, busy: 0, idle: 0 }] })).toHaveLength(
      1,
    );
  });

  it('keeps at most 32 pools', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ ...pool, name: `p${i}` }));
    const kept = poolsOf({ beat: 1, pools: many });
    expect(kept).toEqual(many.slice(0, 32));
  });
});
