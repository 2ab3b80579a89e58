// FinderWake: the work finder's wake-up flag, its one pending wake-up, and its sleep between
// sweeps, which a wake-up or room in a pool left behind cuts short. In fake time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FinderWake } from '../src/engine/finder-wake.js';
import { WorkQueue } from '../src/engine/work-queue.js';
import { newFateId } from '../src/index.js';

/** Whether `p` settled by now (after the microtasks queued so far). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('FinderWake', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('wake() marks it woken and resolves the pending wake-up, once', async () => {
    const w = new FinderWake();
    expect(w.woken).toBe(false);
    const first = w.wakeUp();
    expect(await settled(first)).toBe(false);
    w.wake();
    expect(w.woken).toBe(true);
    expect(await settled(first)).toBe(true);
    // the next wake-up is a new one: an earlier wake does not resolve it
    const second = w.wakeUp();
    expect(await settled(second)).toBe(false);
    w.wake();
    expect(await settled(second)).toBe(true);
  });

  it('settled() forgets the pending wake-up: a later wake resolves nothing', async () => {
    const w = new FinderWake();
    const pending = w.wakeUp();
    w.settled();
    w.wake();
    expect(w.woken).toBe(true);
    expect(await settled(pending)).toBe(false);
  });

  it('sleeps the time given, cut short by a wake-up', async () => {
    const w = new FinderWake();
    const full = w.sleep(1_000, true, new Set());
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(full)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(full)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    const cut = w.sleep(60_000, true, new Set());
    await vi.advanceTimersByTimeAsync(10);
    expect(await settled(cut)).toBe(false);
    w.wake();
    expect(await settled(cut)).toBe(true);
    // its timer is cleared, not left to fire
    expect(vi.getTimerCount()).toBe(0);
  });

  it('returns at once when not running or already woken, setting no timer', async () => {
    const w = new FinderWake();
    expect(await settled(w.sleep(60_000, false, new Set()))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    w.wake();
    expect(await settled(w.sleep(60_000, true, new Set()))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wakes when a pool left behind has room, and forgets the pools it watched', async () => {
    const w = new FinderWake();
    const q = new WorkQueue(1);
    q.tryOffer(newFateId());
    const starved = new Set([q]);
    const sleeping = w.sleep(60_000, true, starved);
    expect(starved.size).toBe(0);
    await vi.advanceTimersByTimeAsync(10);
    expect(await settled(sleeping)).toBe(false);
    await q.take(); // room again
    expect(await settled(sleeping)).toBe(true);
    expect(w.woken).toBe(false);
  });
});
