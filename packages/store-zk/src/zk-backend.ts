import {
  type BackendScan,
  type FateId,
  type IdRange,
  type InstanceRecord,
  type NewRecord,
  type RecordWrite,
  type Reservation,
  type ReservationFilter,
  type Status,
  type StoreBackend,
  type StoreCapabilities,
  type StoredRecord,
  sameReservation,
} from '@fate/core';
import { ZkBatchMarkers } from './zk-batches.js';
import { ZkClient } from './zk-client.js';
import type { ResolvedZkConfig } from './zk-config.js';
import { ZkInserter } from './zk-insert.js';
import { ZkLayout } from './zk-layout.js';
import { ZkLiveness } from './zk-liveness.js';
import { MARKER_GRACE_MS } from './zk-markers.js';
import type { ZkStat } from './zk-native.js';
import { ENVELOPE_RESERVE, isUnreadable } from './zk-record.js';
import { ZkRecords } from './zk-records.js';
import { ZkReservationIndex } from './zk-reserved.js';
import { isRunnableStatus, ZkRunnableIndex } from './zk-runnable.js';
import { ZkScanner } from './zk-scan.js';
import { openTree } from './zk-setup.js';
import { ZkWakeups } from './zk-wakeups.js';

/**
 * The ZooKeeper backend: one znode per transaction under 256 buckets by id prefix, every
 * change a compare-and-set on the znode version (the npm client has no multi-op), fenced
 * on the stored reservation; marker indexes of runnable and of reserved records, so scans
 * and the dead-reservation cleaners read only those; liveness records judged by the
 * servers' clock (mtime); wake-ups through one watched znode. See `ZkLayout` for the tree.
 *
 * @example
 * const store = await openStore('zk://zk1:2181,zk2:2181/app/fate?sessionTimeout=10000');
 */
export class ZkBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities;
  readonly config: ResolvedZkConfig;
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;
  readonly #records: ZkRecords;
  readonly #runnable: ZkRunnableIndex;
  readonly #reserved: ZkReservationIndex;
  readonly #liveness: ZkLiveness;
  readonly #wakeups: ZkWakeups;
  readonly #inserter: ZkInserter;
  readonly #scanner: ZkScanner;

  constructor(config: ResolvedZkConfig) {
    this.config = config;
    this.capabilities = Object.freeze({
      maxRecordBytes: config.juteMaxBuffer - ENVELOPE_RESERVE,
      sortedScan: true,
      wakeups: true,
      multiProcess: true,
    });
    this.#client = new ZkClient(config);
    this.#layout = new ZkLayout(config.chroot);
    this.#records = new ZkRecords(this.#client, this.#layout, config.juteMaxBuffer);
    this.#runnable = new ZkRunnableIndex(this.#client, this.#layout);
    const batches = new ZkBatchMarkers(this.#client, this.#layout);
    this.#reserved = new ZkReservationIndex(this.#client, this.#layout, this.#records);
    this.#liveness = new ZkLiveness(this.#client, this.#layout);
    this.#wakeups = new ZkWakeups(this.#client, this.#layout.wakeup);
    const markers = { runnable: this.#runnable, batches };
    this.#inserter = new ZkInserter(this.#client, this.#records, markers, this.#wakeups);
    this.#scanner = new ZkScanner(
      this.#client,
      this.#layout,
      this.#records,
      this.#runnable,
      batches,
    );
  }

  /** Connects, calibrates the clock and lays out the tree where it is missing. */
  async open(): Promise<void> {
    await this.#client.session();
    await openTree(this.#client, this.#layout, this.#records, this.#reserved);
  }

  /** Ends the session. Liveness records are not ephemeral: they outlive it for their ttl. */
  async close(): Promise<void> {
    this.#wakeups.close();
    await this.#client.close();
  }

  /** The servers' clock as this client estimates it: at most a round trip behind. */
  now(): number {
    return this.#client.clock.now();
  }

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    return (await this.#inserter.insertMany([{ id, record }]))[0] === true;
  }

  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    return this.#inserter.insertMany(records);
  }

  async read(id: FateId): Promise<StoredRecord | undefined> {
    return (await this.#records.read(id))?.record;
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
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
          return { result: sameReservation(record.reservation, reservation) ? record : 'held' };
        }
        const reserved = {
          ...record,
          reservation: { lockId: reservation.lockId, uuid: reservation.uuid },
        };
        return { result: reserved, put: reserved };
      },
      {
        // Touched only once the record is found free, so contention costs no writes; a
        // retry touches again, as a repair may have judged the first touch stale.
        beforeWrite: async () => {
          await this.#reserved.touch(id, reservation);
          touchedAt = performance.now();
        },
        // Free in this client's cache (a scan just read it): the marker's create goes out
        // right before the record write, in one round trip.
        pairedWrite: () => {
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
          },
          // Counted from this write's own mtime: the servers' clock, no estimate.
          ...(change.release ? { deferMs: change.release.deferMs } : {}),
        };
      },
      {
        beforeWrite: async (current, next) => {
          // Becoming runnable: the marker must exist before the record says so.
          if (next && isRunnableStatus(next.status) && !isRunnableStatus(current.record.status)) {
            await this.#runnable.touch(id);
            touchedAt = performance.now();
          }
        },
        alongWrite: (current, next) =>
          isRunnableStatus(current.record.status) && !(next && isRunnableStatus(next.status))
            ? this.#runnable.stat(id)
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
    if (applied.removed) {
      upkeep.push(this.#runnable.remove(id, applied.before.stat.mzxid + 1, seen));
    } else if (applied.after) {
      upkeep.push(this.#runnable.remove(id, applied.after.mzxid, seen));
      if (touchedAt !== undefined) {
        upkeep.push(this.#retouchIfSlow(touchedAt, () => this.#runnable.touch(id)));
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

  /** Every record: lists all 256 buckets and reads each record (pipelined). */
  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    const all = await this.#records.all();
    return statuses ? all.filter(({ record }) => statuses.has(record.status as Status)) : all;
  }

  scanRunnable(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    return this.#scanner.scan(range, limit);
  }

  /** The reserved records, found through the reservation markers of the filter's buckets. */
  reservations(
    filter?: ReservationFilter,
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#reserved.list(filter);
  }

  heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    return this.#liveness.heartbeat(lockId, state, ttlMs);
  }

  instances(): Promise<InstanceRecord[]> {
    return this.#liveness.instances();
  }

  subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    return this.#wakeups.subscribe(listener);
  }

  /**
   * Test hook: replaces one stored field of `id` with bytes that do not decode, behind
   * the guard's back (the record stays a well-formed znode).
   */
  async corrupt(id: FateId, field: 'status' | 'stack' | 'info'): Promise<void> {
    await this.#records.update(id, (current) =>
      current
        ? { result: undefined, put: { ...current.record, [field]: '{not json' } }
        : { result: undefined },
    );
  }

  /** A writer slower than half the grace period touches its marker again after writing. */
  async #retouchIfSlow(touchedAt: number, touch: () => Promise<void>): Promise<void> {
    if (performance.now() - touchedAt > MARKER_GRACE_MS / 2) await touch();
  }
}
