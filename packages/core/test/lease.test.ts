import { describe, expect, it, vi } from 'vitest';
import { Lease } from '../src/engine/lease.js';

/** Blocks this thread for `ms`, as a busy or frozen event loop would: no timer runs. */
const freeze = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

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
