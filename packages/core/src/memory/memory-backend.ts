import { randomUUID } from 'node:crypto';
import type {
  BackendScan,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  ReservationFilter,
  StoreBackend,
  StoredRecord,
} from '../contract/backend.js';
import type { ClaimedRecord } from '../contract/backend-claims.js';
import type { FinishClaimed } from '../contract/backend-finish-claims.js';
import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
} from '../contract/backend-queries.js';
import { declareCapabilities, type StoreCapabilities } from '../contract/capabilities.js';
import type { RunnablePosition } from '../contract/priority.js';
import type { IdRange, Reservation } from '../contract/types.js';
import { sameReservation } from '../guard/codec.js';
import type { FateId } from '../ids.js';
import { Status } from '../status.js';
import { memoryClaimMany } from './memory-claims.js';
import {
  memoryAgeOffDue,
  memoryCounts,
  memoryDeleteAgedOff,
  memoryListPage,
} from './memory-queries.js';
import { memoryReservations, memoryScanRunnable } from './memory-scan.js';
import { MemorySpace, nextFinished, storedEntry } from './memory-space.js';

const spaces = new Map<string, MemorySpace>();

/**
 * The in-memory reference backend: data lives in this process, shared by every client
 * opened on the same namespace name. Each method is synchronous inside, hence atomic.
 */
export class MemoryBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = declareCapabilities({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    wakeups: true,
    multiProcess: false,
    priorities: true,
  });
  readonly #space: MemorySpace;

  /** `namespace` shares data between clients; omitted, the data is private. */
  constructor(namespace: string = randomUUID()) {
    let space = spaces.get(namespace);
    if (!space) {
      space = new MemorySpace();
      spaces.set(namespace, space);
    }
    this.#space = space;
  }

  /** Test hook: every record and liveness record still kept, one line each. */
  leftovers(): string[] {
    return [
      ...[...this.#space.records.keys()].map((id) => `record ${id}`),
      ...[...this.#space.instances.keys()].map((lockId) => `instance ${lockId}`),
    ];
  }

  /** Test hook: replaces a stored field with garbage. */
  corrupt(id: string, field: 'status' | 'stack' | 'info'): void {
    const r = this.#space.records.get(id);
    if (r) this.#space.put(id, { ...r, [field]: '{not json' });
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  /** One process, one clock: this process's wall clock is the store's. */
  now(): number {
    return Date.now();
  }

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    if (this.#space.records.has(id)) return false;
    const { status, stack, info, op } = record;
    const defer = deferUntil(record.deferMs ?? 0);
    const priority = record.priority ? { priority: record.priority } : {};
    this.#space.put(id, {
      status,
      stack,
      info,
      op,
      reservation: null,
      deferUntil: defer,
      ...priority,
    });
    if (record.status === Status.SUBMITTED) this.#space.wakeups.emit('work');
    return true;
  }

  async insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    const out: boolean[] = [];
    for (const { id, record } of records) out.push(await this.insert(id, record));
    return out;
  }

  async read(id: FateId): Promise<StoredRecord | undefined> {
    const r = this.#space.records.get(id);
    return r && storedEntry(r);
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
    start = false,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    const r = this.#space.records.get(id);
    if (!r) return 'absent';
    if (r.reservation && !sameReservation(r.reservation, reservation)) return 'held';
    const reserved = {
      ...r,
      ...(start && r.status === Status.SUBMITTED ? { status: Status.IN_PROGRESS } : {}),
      reservation: { lockId: reservation.lockId, uuid: reservation.uuid },
    };
    this.#space.put(id, reserved);
    return storedEntry(reserved, r.status); // the status as found
  }

  async claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    return memoryClaimMany(this.#space, range, reservations, this.now());
  }

  /** Synchronous, hence one atomic step: the write, then (if it applied) the claim. */
  async finishAndClaim(
    id: FateId,
    reservation: Reservation,
    change: RecordWrite,
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<FinishClaimed> {
    const written = this.#write(id, reservation, change);
    const repeat = reservations.some((r) => this.#space.held.has(r.uuid));
    if (!written && !repeat) return { written, claimed: [] };
    return { written, claimed: memoryClaimMany(this.#space, range, reservations, this.now()) };
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#write(id, reservation, change);
  }

  #write(id: FateId, reservation: Reservation, change: RecordWrite): boolean {
    const r = this.#space.records.get(id);
    if (!r || !sameReservation(r.reservation, reservation)) return false;
    if (change.delete) {
      this.#space.remove(id);
      return true;
    }
    this.#space.put(id, {
      finished: nextFinished(r.finished, change.finished, this.now()),
      status: change.status ?? r.status,
      stack: change.stack ?? r.stack,
      info: change.info ?? r.info,
      op: r.op,
      ...(r.priority ? { priority: r.priority } : {}),
      reservation: change.release ? null : r.reservation,
      deferUntil: change.release ? deferUntil(change.release.deferMs) : r.deferUntil,
    });
    return true;
  }

  async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    const r = this.#space.records.get(id);
    if (!r || !sameReservation(r.reservation, reservation)) return false;
    this.#space.put(id, { ...r, reservation: null });
    return true;
  }

  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    const out: Array<{ id: string; record: StoredRecord }> = [];
    for (const [id, record] of this.#space.records) {
      if (!statuses || statuses.has(record.status as Status)) {
        out.push({ id, record: storedEntry(record) });
      }
    }
    return out;
  }

  async ageOffDue(query: BackendAgeOffQuery): Promise<Array<{ id: string; finishedAt: number }>> {
    return memoryAgeOffDue(this.#space, query);
  }

  async deleteAgedOff(ids: readonly string[], query: BackendAgeOffQuery): Promise<number> {
    return memoryDeleteAgedOff(this.#space, ids, query);
  }

  async counts(): Promise<BackendCount[]> {
    return memoryCounts(this.#space);
  }

  async listPage(query: BackendListQuery): Promise<BackendListPage> {
    return memoryListPage(this.#space, query, this.now());
  }

  /** Walks the range in the runnable order (priority, then id), as a sorted store's levels would. */
  async scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return memoryScanRunnable(this.#space, range, limit, after, this.now());
  }

  async reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return memoryReservations(this.#space, filter);
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    this.#space.instances.set(lockId, { state, forgetAt: this.now() + ttlMs });
  }

  async instances(): Promise<InstanceRecord[]> {
    return this.#space.liveInstances(this.now());
  }

  async subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    this.#space.wakeups.on('work', listener);
    return async () => {
      this.#space.wakeups.off('work', listener);
    };
  }
}

function deferUntil(deferMs: number): number {
  return deferMs === 0 ? 0 : Date.now() + deferMs;
}

/** Drops a shared namespace (tests). */
export function dropMemoryNamespace(namespace: string): void {
  spaces.delete(namespace);
}
