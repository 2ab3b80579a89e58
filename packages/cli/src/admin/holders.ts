import { setTimeout as sleep } from 'node:timers/promises';
import {
  FateError,
  FateErrorCode,
  type FateId,
  type FateStore,
  type FatesStore,
  type InstanceRecordView,
  idAfter,
  isFateError,
  type Reservation,
  Status,
} from '@fate/core';
import { usageError } from '../cli-error.js';
import { type CommandArgs, stringValue } from '../command.js';
import { duration } from './format.js';

/** How long admin commands wait for a transaction another client holds, by default. */
export const ADMIN_RESERVE_TIMEOUT_MS = 10_000;

/** `--wait S`: whole seconds from 1 to 3,600 (default 10), else a usage error naming it. */
export function waitMs(args: CommandArgs): number {
  const raw = stringValue(args, 'wait');
  if (raw === undefined) return ADMIN_RESERVE_TIMEOUT_MS;
  const s = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(s >= 1 && s <= 3_600)) {
    throw usageError(
      `--wait must be a whole number of seconds from 1 to 3600, got ${JSON.stringify(raw)}`,
    );
  }
  return s * 1_000;
}

/** What the store's liveness records say about holders, for people. */
export class Holders {
  readonly #records: Map<string, InstanceRecordView>;

  private constructor(records: readonly InstanceRecordView[]) {
    this.#records = new Map(records.map((r) => [r.lockId, r]));
  }

  static async read(store: FatesStore): Promise<Holders> {
    return new Holders(await store.instanceRecords());
  }

  /** Its last heartbeat is within its timeout (a hint read once, not a judgement). */
  current(lockId: string): boolean {
    return this.#records.get(lockId)?.current === true;
  }

  /** `w1@9f2c… (live, heartbeat 0.3 s ago)`, `(closed)`, `(no heartbeat for 12 s)`, … */
  describe(reservation: Reservation | undefined): string {
    if (!reservation) return '-';
    const r = this.#records.get(reservation.lockId);
    let state: string;
    if (!r) state = 'no liveness record';
    else if (r.gone) state = 'closed';
    else if (r.lastHeartbeatMsAgo === undefined) state = 'no heartbeat time';
    else if (r.current) state = `live, heartbeat ${duration(r.lastHeartbeatMsAgo)} ago`;
    else state = `no heartbeat for ${duration(r.lastHeartbeatMsAgo)}`;
    return `${reservation.lockId} (${state})`;
  }
}

/**
 * Reserves `id` for an admin change. While another client holds it, this client watches
 * that holder (`clearDeadReservations` on just this id): a dead holder is cleared as soon
 * as it has been seen not to renew for its own timeout, so the change does not wait for
 * anyone else's cleaner; a live one is waited for, up to the admin timeout, and then named.
 */
export async function adminReserve(
  store: FatesStore,
  id: FateId,
  waitForMs = ADMIN_RESERVE_TIMEOUT_MS,
): Promise<FateStore> {
  return whileHeld(store, id, waitForMs, () => store.tryReserve(id));
}

/** `forceDelete` for an admin: clears a dead holder first, as `adminReserve` does. */
export async function adminForceDelete(
  store: FatesStore,
  id: FateId,
  waitForMs = ADMIN_RESERVE_TIMEOUT_MS,
): Promise<void> {
  await whileHeld(store, id, waitForMs, async () => {
    try {
      await store.forceDelete(id, { timeoutMs: 0 });
      return true;
    } catch (err) {
      if (isFateError(err, FateErrorCode.TIMEOUT)) return undefined;
      throw err;
    }
  });
}

async function whileHeld<T>(
  store: FatesStore,
  id: FateId,
  waitForMs: number,
  attempt: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = performance.now() + waitForMs;
  const only = { start: id, ...(idAfter(id) ? { end: idAfter(id) as string } : {}) };
  // Every turn reads and pauses: a record deleted, or taken and let go again and again,
  // between the attempt and the read never makes this loop hot, and the deadline holds.
  for (let pause = 10; ; pause = Math.min(pause * 2, 100)) {
    const done = await attempt();
    if (done !== undefined) return done;
    const view = await store.read(id);
    if (view.status === Status.UNKNOWN) {
      throw new FateError(
        FateErrorCode.NOT_FOUND,
        `no transaction ${id} (it was deleted meanwhile)`,
      );
    }
    if (performance.now() >= deadline) {
      const holders = await Holders.read(store);
      const held = view.reservation
        ? `stayed held by ${holders.describe(view.reservation)}`
        : 'kept being taken by others';
      throw new FateError(
        FateErrorCode.TIMEOUT,
        `${id} ${held} for ${duration(waitForMs)}; try again when it lets go (--wait S waits longer)`,
      );
    }
    if (view.reservation) {
      await store.clearDeadReservations(only);
      pause = 100;
    }
    await sleep(Math.min(pause, Math.max(0, deadline - performance.now())));
  }
}
