import { randomUUID } from 'node:crypto';
import type { FateId } from '../ids.js';
import { inRange } from '../partition.js';
import { RUNNABLE_STATUSES, Status } from '../status.js';
import type {
  BackendScan,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  ReservationFilter,
  StoreBackend,
  StoredRecord,
} from '../store/backend.js';
import type { ClaimedRecord } from '../store/backend-claims.js';
import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
} from '../store/backend-queries.js';
import { declareCapabilities, type StoreCapabilities } from '../store/capabilities.js';
import { sameReservation } from '../store/codec.js';
import type { IdRange, Reservation } from '../store/types.js';
import { firstAtOrAfter, memoryClaimMany } from './memory-claims.js';
import {
  memoryAgeOffDue,
  memoryCounts,
  memoryDeleteAgedOff,
  memoryListPage,
} from './memory-queries.js';
import { type Entry, MemorySpace, nextFinished } from './memory-space.js';

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
    this.#space.put(id, { status, stack, info, op, reservation: null, deferUntil: defer });
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
    return r && toStored(r);
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
    return toStored({ ...reserved, status: r.status }); // the status as found
  }

  async claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    return memoryClaimMany(this.#space, range, reservations, this.now());
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
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
        out.push({ id, record: toStored(record) });
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

  /** Walks the ids in order from the range's start, as a sorted store's index would. */
  async scanRunnable(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    const now = this.now();
    const sorted = this.#space.sortedIds();
    const ids: string[] = [];
    const ops: string[] = [];
    let itemsRead = 0;
    let nextDeferralAt: number | undefined;
    let last: string | undefined;
    for (let i = firstAtOrAfter(sorted, range?.start); i < sorted.length; i++) {
      const id = sorted[i] as string;
      if (range?.end !== undefined && id >= range.end) break;
      const r = this.#space.records.get(id);
      if (!r || r.reservation || !RUNNABLE_STATUSES.has(r.status as Status)) continue;
      itemsRead++;
      if (r.deferUntil > now) {
        nextDeferralAt = Math.min(nextDeferralAt ?? r.deferUntil, r.deferUntil);
        continue;
      }
      if (ids.length === limit) {
        last = ids[ids.length - 1];
        break;
      }
      ids.push(id);
      ops.push(r.op);
    }
    return {
      ids,
      ops,
      itemsRead,
      ...(nextDeferralAt ? { nextDeferralAt } : {}),
      ...(last !== undefined ? { last } : {}),
    };
  }

  async reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    const out: Array<{ id: string; reservation: Reservation }> = [];
    for (const [id, r] of this.#space.records) {
      if (!r.reservation || !inRange(id, filter.range)) continue;
      if (filter.lockId !== undefined && r.reservation.lockId !== filter.lockId) continue;
      out.push({ id, reservation: r.reservation });
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    this.#space.instances.set(lockId, { state, forgetAt: this.now() + ttlMs });
  }

  async instances(): Promise<InstanceRecord[]> {
    const now = this.now();
    const out: InstanceRecord[] = [];
    for (const [lockId, { state, forgetAt }] of this.#space.instances) {
      if (forgetAt <= now) this.#space.instances.delete(lockId);
      else out.push({ lockId, state });
    }
    return out;
  }

  async subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    this.#space.wakeups.on('work', listener);
    return async () => {
      this.#space.wakeups.off('work', listener);
    };
  }
}

function toStored(e: Entry): StoredRecord {
  return {
    status: e.status,
    stack: e.stack,
    info: e.info,
    reservation: e.reservation,
    deferUntil: e.deferUntil,
  };
}

function deferUntil(deferMs: number): number {
  return deferMs === 0 ? 0 : Date.now() + deferMs;
}

/** Drops a shared namespace (tests). */
export function dropMemoryNamespace(namespace: string): void {
  spaces.delete(namespace);
}
