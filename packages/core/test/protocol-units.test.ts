// Unit tests of the protocol's pure parts: the lease observer, the lease, ids after a
// cursor, lock ids.

import { idAfter, instanceIdOf } from '@fate/core';
import { describe, expect, it, vi } from 'vitest';
import { Lease } from '../src/engine/lease.js';
import { LeaseObserver } from '../src/store/lease-observer.js';

/** Blocks this thread for `ms`, as a busy or frozen event loop would: no timer runs. */
const freeze = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

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

describe('Lease', () => {
  it('reports a lapse its timer did not report yet when a renewal comes first', () => {
    let lapses = 0;
    const lease = new Lease(30, () => lapses++);
    lease.renewed(performance.now());
    expect(lease.valid).toBe(true);
    freeze(50); // past the lease; its timer cannot run
    expect(lease.valid).toBe(false);
    lease.renewed(performance.now()); // a heartbeat's reply handled before the lease's timer
    expect(lapses).toBe(1);
    expect(lease.valid).toBe(true);
    lease.stop();
  });

  it('reports each lapse once, by its timer when no renewal came first', async () => {
    // virtual time: on real timers this flaked on a loaded machine (a sleep overslept)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      let lapses = 0;
      const lease = new Lease(20, () => lapses++);
      lease.renewed(performance.now());
      await vi.advanceTimersByTimeAsync(19);
      expect(lapses).toBe(0);
      expect(lease.valid).toBe(true);
      await vi.advanceTimersByTimeAsync(41);
      expect(lapses).toBe(1);
      lease.renewed(performance.now() - 100); // a late reply to a beat sent long ago
      await vi.advanceTimersByTimeAsync(10);
      expect(lapses).toBe(1);
      expect(lease.valid).toBe(false);
      lease.renewed(performance.now());
      expect(lease.valid).toBe(true);
      await vi.advanceTimersByTimeAsync(60);
      expect(lapses).toBe(2); // a new stretch of validity, a new lapse
      lease.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('watches on when its timer fires before the lease ran out by performance.now()', async () => {
    // The event loop's clock is whole ms: a timer may fire a little before performance.now()
    // reaches its due time. The store away, no renewal comes to report the lapse later.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let now = 1_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      let lapses = 0;
      const lease = new Lease(100, () => lapses++);
      lease.renewed(now);
      now = 1_099; // the timer fires while the lease is still valid by performance.now()
      await vi.advanceTimersByTimeAsync(101);
      expect(lapses).toBe(0);
      now = 1_200;
      await vi.advanceTimersByTimeAsync(200);
      expect(lapses).toBe(1);
      lease.stop();
    } finally {
      clock.mockRestore();
      vi.useRealTimers();
    }
  });
});

describe('ids and lock ids', () => {
  it('finds the id right after a cursor, carrying over dashes', () => {
    expect(idAfter('00000000-0000-4000-8000-000000000000')).toBe(
      '00000000-0000-4000-8000-000000000001',
    );
    expect(idAfter('00000000-0000-4000-8000-00000000000f')).toBe(
      '00000000-0000-4000-8000-000000000010',
    );
    expect(idAfter('0000000f-ffff-ffff-ffff-ffffffffffff')).toBe(
      '00000010-0000-0000-0000-000000000000',
    );
    expect(idAfter('ffffffff-ffff-ffff-ffff-ffffffffffff')).toBeUndefined();
  });

  it('reads the instance id of an incarnation', () => {
    expect(instanceIdOf('worker-1@9f2c3a4b5c6d')).toBe('worker-1');
    expect(instanceIdOf('a@b@c')).toBe('a@b');
    expect(instanceIdOf('plain')).toBe('plain');
  });
});
