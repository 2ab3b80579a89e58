// Membership's beats and its observation (peers, partition, sweeps), in virtual time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FatesStore } from '../src/contract/fates-store.js';
import { Lease } from '../src/engine/lease.js';
import { Membership } from '../src/engine/membership.js';

const HEARTBEAT_MS = 250;

/** A store whose sweep listing hangs for `hangMs` from its second call on; counts beats. */
function store(hangMs: number) {
  const calls = { beats: 0, sweeps: 0 };
  const self = {
    lockId: 'e0@000000000001',
    registerInstance: async () => undefined,
    unregisterInstance: async () => undefined,
    heartbeat: async () => {
      calls.beats++;
    },
    liveInstances: async () => [{ lockId: self.lockId, group: 'g' }],
    clearDeadReservations: async () => {
      calls.sweeps++;
      if (calls.sweeps > 1) await new Promise((r) => setTimeout(r, hangMs));
      return [];
    },
    releaseOrphans: async () => [],
  };
  return { store: self as unknown as FatesStore, calls };
}

function membership(s: FatesStore, lease: Lease) {
  return new Membership({
    store: s,
    source: 'membership',
    group: 'g',
    load: () => [],
    heartbeatMs: HEARTBEAT_MS,
    deadReservationCheckMs: 0,
    reconcileMs: 60_000,
    ageOff: { everyMs: 60_000, retentionMs: 60_000 },
    lease,
    logger: { warn: () => undefined } as never,
    onEvent: () => undefined,
    onChange: () => undefined,
    onRecovered: () => undefined,
  });
}

describe('Membership', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('goes on beating while a sweep listing hangs, so the engine keeps its lease', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { store: s, calls } = store(3_000);
    let lapses = 0;
    const lease = new Lease(875, () => lapses++);
    const m = membership(s, lease);
    await m.start(); // the first observation, awaited (its sweep answers at once)
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS); // a beat, then a sweep that hangs 3 s
    expect(calls.sweeps).toBe(2);
    const beats = calls.beats;
    await vi.advanceTimersByTimeAsync(2_000);
    // a beat every 250 ms meanwhile (one observation at a time: no sweep starts beside it)
    expect(calls.beats - beats).toBe(8);
    expect(calls.sweeps).toBe(2);
    expect(lease.valid).toBe(true);
    expect(lapses).toBe(0);
    await vi.advanceTimersByTimeAsync(1_500); // the listing answered: the next beat sweeps again
    expect(calls.sweeps).toBe(3);
    const stopped = m.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(done).toBe(false); // stop waits for the observation under way
    await vi.advanceTimersByTimeAsync(3_000);
    expect(done).toBe(true);
  });
});
