import { randomUUID } from 'node:crypto';
import type { FateId, Reservation, StoreBackend, StoredRecord } from '@fate/core';

/** The methods a mutant may replace; each receives the same arguments as the backend's. */
export type Overrides = Partial<Omit<StoreBackend, 'capabilities'>>;

/**
 * A backend that forwards every call to `inner` except those in `overrides`. The
 * overrides call `inner` themselves (captured in their closure) to do the real work.
 */
export function forwarding(inner: StoreBackend, overrides: Overrides): StoreBackend {
  return {
    get capabilities() {
      return inner.capabilities;
    },
    open: overrides.open ?? (() => inner.open()),
    close: overrides.close ?? (() => inner.close()),
    now: overrides.now ?? (() => inner.now()),
    insert: overrides.insert ?? ((id, record) => inner.insert(id, record)),
    insertMany: overrides.insertMany ?? ((records) => inner.insertMany(records)),
    read: overrides.read ?? ((id) => inner.read(id)),
    tryReserve:
      overrides.tryReserve ??
      ((id, reservation, start) => inner.tryReserve(id, reservation, start)),
    write: overrides.write ?? ((id, reservation, change) => inner.write(id, reservation, change)),
    clearReservation:
      overrides.clearReservation ?? ((id, reservation) => inner.clearReservation(id, reservation)),
    list: overrides.list ?? ((statuses) => inner.list(statuses)),
    scanRunnable:
      overrides.scanRunnable ?? ((range, limit, after) => inner.scanRunnable(range, limit, after)),
    reservations: overrides.reservations ?? ((filter) => inner.reservations(filter)),
    heartbeat:
      overrides.heartbeat ?? ((lockId, state, ttlMs) => inner.heartbeat(lockId, state, ttlMs)),
    instances: overrides.instances ?? (() => inner.instances()),
    subscribeWakeups:
      overrides.subscribeWakeups ?? ((listener) => inner.subscribeWakeups(listener)),
  };
}

/**
 * Rewrites a stored record from outside the contract, as a buggy backend would inside:
 * under its current holder's reservation, or under a throw-away one taken and cleared
 * around the change when it is free. Not atomic (a mutant need not be). False when the
 * record is absent or another client got in between.
 */
export async function rewrite(
  inner: StoreBackend,
  id: FateId,
  change: (stored: StoredRecord, reservation: Reservation) => Promise<boolean>,
): Promise<boolean> {
  const stored = await inner.read(id);
  if (!stored) return false;
  if (stored.reservation) return change(stored, stored.reservation);
  const mine: Reservation = { lockId: 'mutant@0', uuid: randomUUID() };
  const taken = await inner.tryReserve(id, mine);
  if (typeof taken === 'string') return false;
  try {
    return await change(taken, mine);
  } finally {
    await inner.clearReservation(id, mine);
  }
}

/** Sets a record's stored deferral to `until` (store clock; 0 = none), keeping the rest. */
export async function setDeferral(
  inner: StoreBackend,
  id: FateId,
  until: number,
): Promise<boolean> {
  return rewrite(inner, id, async (stored, reservation) => {
    const deferMs = until === 0 ? 0 : Math.max(1, until - inner.now());
    if (!(await inner.write(id, reservation, { release: { deferMs } }))) return false;
    // the release also ended the holder's reservation: give it back
    if (stored.reservation) await inner.tryReserve(id, stored.reservation);
    return true;
  });
}
