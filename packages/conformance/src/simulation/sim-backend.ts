import {
  type BackendScan,
  type ClaimedRecord,
  type FateId,
  FINISHED_STATUSES,
  type IdRange,
  type InstanceRecord,
  type NewRecord,
  type RecordWrite,
  type Reservation,
  type ReservationFilter,
  type RunnablePosition,
  type Status,
  type StoreBackend,
  type StoreCapabilities,
  type StoredRecord,
} from '@fate/core';
import type { FaultSchedule } from './faults.js';
import type { History, SimEvent } from './history.js';
import type { SimProcess } from './process.js';
import { SimCalls } from './sim-calls.js';
import { SimDeletes, type SimDeletesOptions } from './sim-deletes.js';

export { MAX_CALLS_PER_SECOND, SimFault } from './sim-calls.js';

export interface SimBackendOptions extends SimDeletesOptions {
  readonly process: SimProcess;
  /** Who this client is in the history (`e1`, `client`, `admin`). */
  readonly client: string;
  readonly history: History;
  readonly faults: FaultSchedule;
  /** How long a `hang` holds a reply, ms (past the liveness timeout). */
  readonly hangMs: number;
  /** Calls of a batched kind at one simulated instant share one fault decision (`SimCalls`). */
  readonly batches?: boolean;
}

/**
 * A backend client owned by the simulation: every call waits while its process is paused,
 * never returns once it crashed, and gets the next decision of the world's fault plan.
 * Heartbeats, inserts and deletes are recorded in the history; calls are counted per
 * simulated second (a client past `MAX_CALLS_PER_SECOND` is a violation, and its further
 * calls never return, which stops the loop). The inner backend's optional operations are
 * present exactly when it has them, so the guard takes the paths it takes in production
 * (batched claims, the age-off index and its batched delete, counts, pages).
 */
export class SimBackend implements StoreBackend {
  readonly #inner: StoreBackend;
  readonly #o: SimBackendOptions;
  readonly #calls: SimCalls;
  readonly #deletes: SimDeletes;

  /** The inner backend's batched claim, present exactly when it has it (engines then claim). */
  readonly claimMany?: (
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ) => Promise<ClaimedRecord[]>;
  /** The inner backend's finish-and-claim, present exactly when it has it. */
  readonly finishAndClaim?: NonNullable<StoreBackend['finishAndClaim']>;
  readonly ageOffDue?: NonNullable<StoreBackend['ageOffDue']>;
  /** Judged like every delete: what it removed must still have been finished. */
  readonly deleteAgedOff?: NonNullable<StoreBackend['deleteAgedOff']>;
  readonly counts?: NonNullable<StoreBackend['counts']>;
  readonly listPage?: NonNullable<StoreBackend['listPage']>;

  constructor(inner: StoreBackend, options: SimBackendOptions) {
    this.#inner = inner;
    this.#o = options;
    this.#calls = new SimCalls(options);
    this.#deletes = new SimDeletes(inner, options);
    const run = <T>(op: string, call: () => Promise<T>) => this.#calls.run(op, call);
    const { claimMany, finishAndClaim, ageOffDue, deleteAgedOff, counts, listPage } = inner;
    if (claimMany)
      this.claimMany = (range, rs) => run('claimMany', () => claimMany.call(inner, range, rs));
    if (finishAndClaim) {
      this.finishAndClaim = (id, r, change, range, rs) =>
        run('finishAndClaim', async () => {
          const apply = () => finishAndClaim.call(inner, id, r, change, range, rs);
          if (change.delete) return this.#deletes.one(id, apply, (done) => done.written);
          const done = await apply();
          if (done.written) this.#finished(id, change);
          return done;
        });
    }
    if (ageOffDue) this.ageOffDue = (q) => run('ageOffDue', () => ageOffDue.call(inner, q));
    if (deleteAgedOff) {
      this.deleteAgedOff = (ids, q) =>
        run('deleteAgedOff', () =>
          this.#deletes.batch(ids, () => deleteAgedOff.call(inner, ids, q)),
        );
    }
    if (counts) this.counts = () => run('counts', () => counts.call(inner));
    if (listPage) this.listPage = (q) => run('listPage', () => listPage.call(inner, q));
  }

  get capabilities(): StoreCapabilities {
    return this.#inner.capabilities;
  }

  open(): Promise<void> {
    return this.#inner.open();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  now(): number {
    return this.#inner.now();
  }

  insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#calls.run('insert', async () => {
      const created = await this.#inner.insert(id, record);
      if (created) this.#o.history.add(inserted(this.#o.history, id, record));
      return created;
    });
  }

  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    return this.#calls.run('insertMany', async () => {
      const created = await this.#inner.insertMany(records);
      records.forEach((r, i) => {
        if (created[i]) this.#o.history.add(inserted(this.#o.history, r.id, r.record));
      });
      return created;
    });
  }

  read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#calls.run('read', () => this.#inner.read(id));
  }

  tryReserve(
    id: FateId,
    reservation: Reservation,
    start?: boolean,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#calls.run('tryReserve', () => this.#inner.tryReserve(id, reservation, start));
  }

  /** An applied write that set a finished status: the history's `finished` (children check). */
  #finished(id: string, change: RecordWrite): void {
    if (!change.status || !FINISHED_STATUSES.has(change.status)) return;
    const h = this.#o.history;
    h.add({ t: h.now(), e: 'finished', id, status: change.status, client: this.#o.client });
  }

  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#calls.run('write', async () => {
      const apply = () => this.#inner.write(id, reservation, change);
      if (change.delete) return this.#deletes.one(id, apply, (done) => done);
      const done = await apply();
      if (done) this.#finished(id, change);
      return done;
    });
  }

  clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#calls.run('clearReservation', () => this.#inner.clearReservation(id, reservation));
  }

  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    return this.#calls.run('list', () => this.#inner.list(statuses));
  }

  scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return this.#calls.run('scanRunnable', () => this.#inner.scanRunnable(range, limit, after));
  }

  reservations(
    filter?: ReservationFilter,
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#calls.run('reservations', () => this.#inner.reservations(filter));
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    const sent = this.#o.history.now();
    const gone = state.includes('"gone":true');
    while (this.#o.process.stalled && !gone) {
      await new Promise((r) => setTimeout(r, 50));
    }
    let ok = false;
    try {
      await this.#calls.run('heartbeat', () => this.#inner.heartbeat(lockId, state, ttlMs));
      ok = true;
    } finally {
      this.#o.history.add({ t: this.#o.history.now(), e: 'beat', lockId, sent, ok, gone });
    }
  }

  instances(): Promise<InstanceRecord[]> {
    return this.#calls.run('instances', () => this.#inner.instances());
  }

  subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    const p = this.#o.process;
    // a paused process hears nothing until it resumes; a dead one never again
    return this.#inner.subscribeWakeups(() => void p.gate().then(listener));
  }
}

/** The history's event for an insert the store applied. */
function inserted(history: History, id: string, record: NewRecord): SimEvent {
  const deferMs = record.deferMs ?? 0;
  return { t: history.now(), e: 'inserted', id, ...(deferMs > 0 ? { deferMs } : {}) };
}
