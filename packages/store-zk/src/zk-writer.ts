import {
  type FateId,
  type RecordWrite,
  type Reservation,
  Status,
  type StoredRecord,
  sameReservation,
} from '@fate/core';
import { MARKER_SLOW_MS } from './zk-markers.js';
import type { ZkStat } from './zk-native.js';
import { isUnreadable } from './zk-record-codec.js';
import type { ZkRecords } from './zk-records.js';
import type { ZkReservationIndex } from './zk-reservation-index.js';
import { isRunnableStatus, levelOf, type ZkRunnableIndex } from './zk-runnable-index.js';

/**
 * The fenced writes: reserving, writing under a reservation and clearing one, each a
 * compare-and-set of the record (`ZkRecords.update`) with its markers kept by the rules
 * of `zk-markers.ts` — touched before the record enters an indexed state, removed after
 * it left it. Each gives the same answer when repeated after it applied (a lost reply):
 * a reservation already stored is answered with the record, a write is absolute, a clear
 * of a reservation that is gone answers false.
 */
export class ZkWriter {
  readonly #records: ZkRecords;
  readonly #runnable: ZkRunnableIndex;
  readonly #reserved: ZkReservationIndex;

  constructor(records: ZkRecords, runnable: ZkRunnableIndex, reserved: ZkReservationIndex) {
    this.#records = records;
    this.#runnable = runnable;
    this.#reserved = reserved;
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
    start = false,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    let touchedAt: number | undefined;
    const applied = await this.#records.update<StoredRecord | 'absent' | 'held'>(
      id,
      (current) => {
        if (!current) return { result: 'absent' };
        const record = current.record;
        // Handed back unreserved: the guard cannot decode it and reports FATE_CORRUPT_DATA.
        if (isUnreadable(record)) return { result: record };
        if (record.reservation) {
          if (!sameReservation(record.reservation, reservation)) return { result: 'held' };
          // Held by this very reservation (a retry, or reserved before without start): a
          // SUBMITTED one taken to run is started now, as a free one would be, and answered
          // as found. Its marker exists already (the hooks below leave it be).
          if (!start || record.status !== Status.SUBMITTED) return { result: record };
          return { result: record, put: { ...record, status: Status.IN_PROGRESS } };
        }
        // Taken to run: SUBMITTED becomes IN_PROGRESS in the same set (both runnable, so no
        // marker moves).
        const reserved = {
          ...record,
          ...(start && record.status === Status.SUBMITTED ? { status: Status.IN_PROGRESS } : {}),
          reservation: { lockId: reservation.lockId, uuid: reservation.uuid },
        };
        return { result: { ...reserved, status: record.status }, put: reserved }; // as found
      },
      {
        // Touched only once the record is found free, so contention costs no writes; a
        // retry touches again, as a repair may have judged the first touch stale.
        // Timed from before the touch is sent: a pause before its reply is taken in counts.
        beforeWrite: async (current) => {
          if (current.record.reservation) return; // ours already: its marker exists
          const at = performance.now();
          await this.#reserved.touch(id, reservation);
          touchedAt = at;
        },
        // Free in this client's cache (a scan just read it): the marker's create goes out
        // right before the record write, in one round trip.
        pairedWrite: async (current) => {
          if (current.record.reservation) return 'ok'; // ours already: its marker exists
          touchedAt = performance.now();
          return this.#reserved.create(id, reservation);
        },
      },
    );
    if (touchedAt !== undefined) {
      if (!applied.written) {
        // Touched, then lost the race: the marker is this attempt's own, and stale.
        await this.#reserved.remove(id, reservation).catch(() => undefined);
      } else if (applied.paired !== undefined && applied.paired !== 'ok') {
        // The reservation is stored: make sure of its marker now (a missing one only
        // matters if this process dies holding it before it is released).
        await this.#reserved.touch(id, reservation).catch(() => undefined);
      } else {
        await this.#retouchIfSlow(touchedAt, () => this.#reserved.touch(id, reservation));
      }
    }
    return applied.result;
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    let touchedAt: number | undefined;
    const applied = await this.#records.update<boolean>(
      id,
      (current) => {
        if (!current || !sameReservation(current.record.reservation, reservation))
          return { result: false };
        if (change.delete) return { result: true, remove: true };
        const r = current.record;
        return {
          result: true,
          put: {
            status: change.status ?? r.status,
            stack: change.stack ?? r.stack,
            info: change.info ?? r.info,
            reservation: change.release ? null : r.reservation,
            deferUntil: change.release ? 0 : r.deferUntil,
            ...(r.priority ? { priority: r.priority } : {}), // fixed at the insert
          },
          // Counted from this write's own mtime: the servers' clock, no estimate.
          ...(change.release ? { deferMs: change.release.deferMs } : {}),
        };
      },
      {
        beforeWrite: async (current, next) => {
          // Becoming runnable: the marker must exist before the record says so.
          if (next && isRunnableStatus(next.status) && !isRunnableStatus(current.record.status)) {
            const at = performance.now(); // before the touch is sent: see MARKER_SLOW_MS
            await this.#runnable.touch(id, levelOf(current.record));
            touchedAt = at;
          }
        },
        alongWrite: (current, next) =>
          isRunnableStatus(current.record.status) && !(next && isRunnableStatus(next.status))
            ? this.#runnable.stat(id, levelOf(current.record))
            : undefined,
      },
    );
    if (!applied.result || !applied.before) return applied.result;
    // The record is written: marker upkeep may fail without failing the write, as a stale
    // marker only costs a read until a repair.
    const upkeep: Array<Promise<unknown>> = [];
    if (applied.removed || applied.written?.reservation === null) {
      upkeep.push(this.#reserved.remove(id, reservation));
    }
    const seen = applied.along as ZkStat | undefined;
    const level = levelOf(applied.before.record);
    if (applied.removed) {
      upkeep.push(this.#runnable.remove(id, level, applied.before.stat.mzxid + 1, seen));
    } else if (applied.after) {
      upkeep.push(this.#runnable.remove(id, level, applied.after.mzxid, seen));
      if (touchedAt !== undefined) {
        upkeep.push(this.#retouchIfSlow(touchedAt, () => this.#runnable.touch(id, level)));
      }
    }
    await Promise.all(upkeep.map((p) => p.catch(() => undefined)));
    return true;
  }

  async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    const { result } = await this.#records.update<boolean>(id, (current) => {
      if (!current || !sameReservation(current.record.reservation, reservation))
        return { result: false };
      return { result: true, put: { ...current.record, reservation: null } };
    });
    if (result) await this.#reserved.remove(id, reservation).catch(() => undefined);
    return result;
  }

  /**
   * A writer whose record write was answered more than `MARKER_SLOW_MS` after it sent its
   * marker's touch touches the marker again (a lister may have judged it old meanwhile).
   */
  async #retouchIfSlow(touchedAt: number, touch: () => Promise<void>): Promise<void> {
    if (performance.now() - touchedAt > MARKER_SLOW_MS) await touch();
  }
}
