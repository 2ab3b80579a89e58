import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { FateId } from '../ids.js';
import { inRange } from '../partition.js';
import { RUNNABLE_STATUSES, Status } from '../status.js';
import type {
  BackendScan,
  NewRecord,
  RecordWrite,
  StoreBackend,
  StoredRecord,
} from '../store/backend.js';
import type { StoreCapabilities } from '../store/capabilities.js';
import { sameReservation } from '../store/codec.js';
import type { IdRange, Reservation } from '../store/types.js';

/** The shared data of one in-memory namespace. */
class MemorySpace {
  readonly records = new Map<string, StoredRecord>();
  readonly instances = new Map<string, number>();
  readonly wakeups = new EventEmitter();
}

const spaces = new Map<string, MemorySpace>();

/**
 * The in-memory reference backend: data lives in this process, shared by every client
 * opened on the same namespace name. Each method is synchronous inside, hence atomic.
 */
export class MemoryBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = Object.freeze({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: false,
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

  /** Test hook: replaces a stored field with garbage. */
  corrupt(id: string, field: 'status' | 'stack' | 'info'): void {
    const r = this.#space.records.get(id);
    if (r) this.#space.records.set(id, { ...r, [field]: '{not json' });
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    if (this.#space.records.has(id)) return false;
    this.#space.records.set(id, { ...record, reservation: null, deferUntil: 0 });
    if (record.status === Status.SUBMITTED) this.#space.wakeups.emit('work');
    return true;
  }

  async read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#space.records.get(id);
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    const r = this.#space.records.get(id);
    if (!r) return 'absent';
    if (r.reservation && !sameReservation(r.reservation, reservation)) return 'held';
    const reserved = { ...r, reservation };
    this.#space.records.set(id, reserved);
    return reserved;
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    const r = this.#space.records.get(id);
    if (!r || !sameReservation(r.reservation, reservation)) return false;
    if (change.delete) {
      this.#space.records.delete(id);
      return true;
    }
    this.#space.records.set(id, {
      status: change.status ?? r.status,
      stack: change.stack ?? r.stack,
      info: change.info ?? r.info,
      reservation: change.release ? null : r.reservation,
      deferUntil: change.release ? change.release.deferUntil : r.deferUntil,
    });
    return true;
  }

  async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    const r = this.#space.records.get(id);
    if (!r || !sameReservation(r.reservation, reservation)) return false;
    this.#space.records.set(id, { ...r, reservation: null });
    return true;
  }

  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    const out: Array<{ id: string; record: StoredRecord }> = [];
    for (const [id, record] of this.#space.records) {
      if (!statuses || statuses.has(record.status as Status)) out.push({ id, record });
    }
    return out;
  }

  async scanRunnable(range: IdRange | undefined, now: number): Promise<BackendScan> {
    const ids: string[] = [];
    let itemsRead = 0;
    let nextDeferralAt: number | undefined;
    for (const [id, r] of this.#space.records) {
      itemsRead++;
      if (!inRange(id, range) || r.reservation || !RUNNABLE_STATUSES.has(r.status as Status))
        continue;
      if (r.deferUntil > now) {
        nextDeferralAt = Math.min(nextDeferralAt ?? r.deferUntil, r.deferUntil);
        continue;
      }
      ids.push(id);
    }
    ids.sort();
    return { ids, itemsRead, ...(nextDeferralAt ? { nextDeferralAt } : {}) };
  }

  async reservations(): Promise<Array<{ id: string; reservation: Reservation }>> {
    const out: Array<{ id: string; reservation: Reservation }> = [];
    for (const [id, r] of this.#space.records) {
      if (r.reservation) out.push({ id, reservation: r.reservation });
    }
    return out;
  }

  async heartbeat(instanceId: string, timeoutMs: number): Promise<void> {
    this.#space.instances.set(instanceId, Date.now() + timeoutMs);
  }

  async removeInstance(instanceId: string): Promise<void> {
    this.#space.instances.delete(instanceId);
  }

  async liveInstances(now: number): Promise<string[]> {
    return [...this.#space.instances].filter(([, expires]) => expires > now).map(([id]) => id);
  }

  async subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    this.#space.wakeups.on('work', listener);
    return async () => {
      this.#space.wakeups.off('work', listener);
    };
  }
}

/** Drops a shared namespace (tests). */
export function dropMemoryNamespace(namespace: string): void {
  spaces.delete(namespace);
}
