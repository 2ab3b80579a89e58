import type {
  BackendScan,
  ClaimedRecord,
  FateId,
  IdRange,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  Reservation,
  ReservationFilter,
  Status,
  StoreBackend,
  StoreCapabilities,
  StoredRecord,
} from '@fate/core';
import type { FaultSchedule } from './faults.js';
import type { History, SimEvent } from './history.js';
import type { SimProcess } from './process.js';

/** The error of an injected fault; the guard reports it as FATE_STORE_UNAVAILABLE. */
export class SimFault extends Error {
  constructor(what: string) {
    super(`simulated fault: ${what}`);
    this.name = 'SimFault';
  }
}

/** More backend calls than this in one simulated second by one client is a hot loop. */
export const MAX_CALLS_PER_SECOND = 1_500;

export interface SimBackendOptions {
  readonly process: SimProcess;
  /** Who this client is in the history (`e1`, `client`, `admin`). */
  readonly client: string;
  readonly history: History;
  readonly faults: FaultSchedule;
  /** How long a `hang` holds a reply, ms (past the liveness timeout). */
  readonly hangMs: number;
  /**
   * True when the inner backend applies each call synchronously when it is made (the memory
   * backend): a record is then read and changed in one step, so what a delete removed is
   * known exactly. Real backends: deletes are recorded without the prior status check.
   */
  readonly atomic: boolean;
  /** Asked about every delete the store applies: a violation's text, or undefined. */
  judgeDelete(id: string, before: StoredRecord | undefined, client: string): string | undefined;
}

/**
 * A backend client owned by the simulation: every call waits while its process is paused,
 * never returns once it crashed, and gets the next decision of the world's fault plan.
 * Heartbeats, inserts and deletes are recorded in the history; calls are counted per
 * simulated second (a client past `MAX_CALLS_PER_SECOND` is a violation, and its further
 * calls never return, which stops the loop).
 */
export class SimBackend implements StoreBackend {
  readonly #inner: StoreBackend;
  readonly #o: SimBackendOptions;
  #second = -1;
  #calls = 0;
  #hot = false;

  /** The inner backend's batched claim, present exactly when it has it (engines then claim). */
  readonly claimMany?: (
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ) => Promise<ClaimedRecord[]>;

  constructor(inner: StoreBackend, options: SimBackendOptions) {
    this.#inner = inner;
    this.#o = options;
    const { claimMany } = inner;
    if (claimMany) {
      this.claimMany = (range, rs) =>
        this.#run('claimMany', () => claimMany.call(inner, range, rs));
    }
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
    return this.#run('insert', async () => {
      const created = await this.#inner.insert(id, record);
      if (created) this.#o.history.add(inserted(this.#o.history, id, record));
      return created;
    });
  }

  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    return this.#run('insertMany', async () => {
      const created = await this.#inner.insertMany(records);
      records.forEach((r, i) => {
        if (created[i]) this.#o.history.add(inserted(this.#o.history, r.id, r.record));
      });
      return created;
    });
  }

  read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#run('read', () => this.#inner.read(id));
  }

  tryReserve(
    id: FateId,
    reservation: Reservation,
    start?: boolean,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#run('tryReserve', () => this.#inner.tryReserve(id, reservation, start));
  }

  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#run('write', async () => {
      if (!change.delete) return this.#inner.write(id, reservation, change);
      // read and write are both started before either is awaited: on the memory backend
      // each applies when called, so `before` is exactly what the delete removed
      const reading = this.#o.atomic ? this.#inner.read(id) : Promise.resolve(undefined);
      const writing = this.#inner.write(id, reservation, change);
      const [before, done] = await Promise.all([reading, writing]);
      if (done) this.#deleted(id, before);
      return done;
    });
  }

  clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#run('clearReservation', () => this.#inner.clearReservation(id, reservation));
  }

  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    return this.#run('list', () => this.#inner.list(statuses));
  }

  scanRunnable(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    return this.#run('scanRunnable', () => this.#inner.scanRunnable(range, limit));
  }

  reservations(
    filter?: ReservationFilter,
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#run('reservations', () => this.#inner.reservations(filter));
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    const sent = this.#o.history.now();
    const gone = state.includes('"gone":true');
    while (this.#o.process.stalled && !gone) {
      await new Promise((r) => setTimeout(r, 50));
    }
    let ok = false;
    try {
      await this.#run('heartbeat', () => this.#inner.heartbeat(lockId, state, ttlMs));
      ok = true;
    } finally {
      this.#o.history.add({ t: this.#o.history.now(), e: 'beat', lockId, sent, ok, gone });
    }
  }

  instances(): Promise<InstanceRecord[]> {
    return this.#run('instances', () => this.#inner.instances());
  }

  subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    const p = this.#o.process;
    // a paused process hears nothing until it resumes; a dead one never again
    return this.#inner.subscribeWakeups(() => void p.gate().then(listener));
  }

  #deleted(id: string, before: StoredRecord | undefined): void {
    const h = this.#o.history;
    h.add({ t: h.now(), e: 'deleted', id, status: before?.status ?? '?', client: this.#o.client });
    if (!this.#o.atomic) return;
    const wrong = this.#o.judgeDelete(id, before, this.#o.client);
    if (wrong) h.violation(wrong);
  }

  async #run<T>(op: string, call: () => Promise<T>): Promise<T> {
    const p = this.#o.process;
    await p.gate();
    if (this.#count()) return new Promise<T>(() => undefined);
    const d = this.#o.faults.take();
    if (d.delayMs > 0) await new Promise((r) => setTimeout(r, d.delayMs));
    await p.gate();
    if (d.fault === 'fail') throw new SimFault(`${op} failed before reaching the store`);
    const result = await call();
    if (d.fault === 'hang') await new Promise((r) => setTimeout(r, this.#o.hangMs));
    await p.gate();
    if (d.fault === 'lose') throw new SimFault(`${op} applied, its reply was lost`);
    return result;
  }

  /** Counts a call; true once this client loops hot (its calls then never return). */
  #count(): boolean {
    if (this.#hot) return true;
    const second = Math.floor(this.#o.history.now() / 1_000);
    if (second !== this.#second) {
      this.#second = second;
      this.#calls = 0;
    }
    if (++this.#calls <= MAX_CALLS_PER_SECOND) return false;
    this.#hot = true;
    this.#o.history.violation(
      `hot loop: ${this.#o.client} made more than ${MAX_CALLS_PER_SECOND} backend calls in simulated second ${second}`,
    );
    return true;
  }
}

/** The history's event for an insert the store applied. */
function inserted(history: History, id: string, record: NewRecord): SimEvent {
  const deferMs = record.deferMs ?? 0;
  return { t: history.now(), e: 'inserted', id, ...(deferMs > 0 ? { deferMs } : {}) };
}
