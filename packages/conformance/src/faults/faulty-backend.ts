import type {
  BackendScan,
  FateId,
  IdRange,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  Reservation,
  ReservationFilter,
  RunnablePosition,
  Status,
  StoreBackend,
  StoreCapabilities,
  StoredRecord,
} from '@fate/core';
import { type FaultKind, type FaultOp, InjectedFault, type Rule, takeRule } from './fault-rules.js';
import { withSkewedClock } from './skewed-clock.js';

// the fault vocabulary is part of this module's public face (`@fate/conformance/faulty-backend`)
export { type FaultKind, type FaultOp, InjectedFault };

/**
 * Wraps any `StoreBackend` and injects the faults of the failure model on demand: a reply
 * lost after the store applied the call, a call that fails, a write the store acknowledges
 * and loses, delays, a store outage, and hooks that run between a call and its reply (to
 * make a race happen exactly there). Everything else passes through unchanged.
 *
 * @example
 * const faults = new FaultyBackend(fixture.backend());
 * const store = await createFatesStore(faults);
 * faults.inject('lose-reply', 'tryReserve'); // the next reservation applies, its reply is lost
 */
export class FaultyBackend implements StoreBackend {
  readonly #inner: StoreBackend;
  readonly #rules: Rule[] = [];
  readonly #after = new Map<FaultOp, () => Promise<void> | void>();
  readonly #before = new Map<FaultOp, () => Promise<void> | void>();
  readonly #delays = new Map<FaultOp | '*', number>();
  #outageUntil = 0;
  #skewMs = 0;
  /** How many times each operation was called (faulty or not). */
  readonly calls = new Map<FaultOp, number>();

  constructor(inner: StoreBackend) {
    this.#inner = inner;
  }

  // The wrapped backend's optional operations, present exactly when it has them at the
  // moment they are looked up (a backend may add them as it opens: Redis's queries).

  get ageOffDue(): StoreBackend['ageOffDue'] {
    const fn = this.#inner.ageOffDue;
    return fn && ((q) => this.#run('ageOffDue', [q], () => fn.call(this.#inner, q)));
  }

  get counts(): StoreBackend['counts'] {
    const fn = this.#inner.counts;
    return fn && (() => this.#run('counts', [], () => fn.call(this.#inner)));
  }

  get deleteAgedOff(): StoreBackend['deleteAgedOff'] {
    const fn = this.#inner.deleteAgedOff;
    return (
      fn && ((ids, q) => this.#run('deleteAgedOff', [ids, q], () => fn.call(this.#inner, ids, q)))
    );
  }

  get listPage(): StoreBackend['listPage'] {
    const fn = this.#inner.listPage;
    return fn && ((q) => this.#run('listPage', [q], () => fn.call(this.#inner, q)));
  }

  get claimMany(): StoreBackend['claimMany'] {
    const fn = this.#inner.claimMany;
    return (
      fn &&
      ((range, rs) => this.#run('claimMany', [range, rs], () => fn.call(this.#inner, range, rs)))
    );
  }

  get finishAndClaim(): StoreBackend['finishAndClaim'] {
    const fn = this.#inner.finishAndClaim;
    // a dropped call answers as an applied write that found nothing to claim
    return (
      fn &&
      ((id, r, change, range, rs) =>
        this.#run('finishAndClaim', [id, r, change, range, rs], () =>
          fn.call(this.#inner, id, r, change, range, rs),
        ).then((got) => (got === (true as never) ? { written: true, claimed: [] } : got)))
    );
  }

  get capabilities(): StoreCapabilities {
    return this.#inner.capabilities;
  }

  /**
   * The next `times` calls of `op` (that `when` accepts, if given) get `kind`. Rules are
   * consumed in the order they were added.
   */
  inject<A extends unknown[]>(
    kind: FaultKind,
    op: FaultOp,
    times = 1,
    when?: (...args: A) => boolean,
  ): this {
    this.#rules.push({ kind, op, remaining: times, when: when as Rule['when'] });
    return this;
  }

  /** Removes every rule not yet consumed, ends the outage and the delays. */
  heal(): void {
    this.#rules.length = 0;
    this.#delays.clear();
    this.#outageUntil = 0;
  }

  /** Every call fails for `ms` from now without reaching the store. */
  outage(ms: number): void {
    this.#outageUntil = performance.now() + ms;
  }

  /**
   * The wrapped backend's calls, and its `now()`, see `Date.now()` off by `ms`, as from a
   * host whose clock is wrong: whatever the backend computes from the clock when called
   * (an expiry, a deferral) is computed from the wrong one.
   */
  skewClock(ms: number): void {
    this.#skewMs = ms;
  }

  /** Every call of `op` (or of every op, `'*'`) waits `ms` before reaching the store. */
  delay(op: FaultOp | '*', ms: number): void {
    this.#delays.set(op, ms);
  }

  /** Runs `hook` once, before the next call of `op` reaches the store (after any delay). */
  before(op: FaultOp, hook: () => Promise<void> | void): void {
    this.#before.set(op, hook);
  }

  /** Runs `hook` once, after the next call of `op` returned and before its caller resumes. */
  after(op: FaultOp, hook: () => Promise<void> | void): void {
    this.#after.set(op, hook);
  }

  open(): Promise<void> {
    return this.#inner.open();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  now(): number {
    return withSkewedClock(this.#skewMs, () => this.#inner.now());
  }

  insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#run('insert', [id, record], () => this.#inner.insert(id, record));
  }

  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    return this.#run('insertMany', [records], () => this.#inner.insertMany(records));
  }

  read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#run('read', [id], () => this.#inner.read(id));
  }

  tryReserve(
    id: FateId,
    reservation: Reservation,
    start?: boolean,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#run('tryReserve', [id, reservation, start], () =>
      this.#inner.tryReserve(id, reservation, start),
    );
  }

  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#run('write', [id, reservation, change], () =>
      this.#inner.write(id, reservation, change),
    );
  }

  clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#run('clearReservation', [id, reservation], () =>
      this.#inner.clearReservation(id, reservation),
    );
  }

  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    return this.#run('list', [statuses], () => this.#inner.list(statuses));
  }

  scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return this.#run('scanRunnable', [range, limit, after], () =>
      this.#inner.scanRunnable(range, limit, after),
    );
  }

  reservations(
    filter?: ReservationFilter,
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#run('reservations', [filter], () => this.#inner.reservations(filter));
  }

  heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    return this.#run('heartbeat', [lockId, state, ttlMs], () =>
      this.#inner.heartbeat(lockId, state, ttlMs),
    );
  }

  instances(): Promise<InstanceRecord[]> {
    return this.#run('instances', [], () => this.#inner.instances());
  }

  subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    return this.#inner.subscribeWakeups(listener);
  }

  async #run<T>(op: FaultOp, args: unknown[], call: () => Promise<T>): Promise<T> {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
    const wait = this.#delays.get(op) ?? this.#delays.get('*');
    if (wait) await new Promise((r) => setTimeout(r, wait));
    const first = this.#before.get(op);
    if (first) {
      this.#before.delete(op);
      await first();
    }
    if (performance.now() < this.#outageUntil) throw new InjectedFault(`${op}: the store is away`);
    const rule = takeRule(this.#rules, op, args);
    if (rule?.kind === 'fail') throw new InjectedFault(`${op} failed before reaching the store`);
    if (rule?.kind === 'drop') return true as T;
    const result = await withSkewedClock(this.#skewMs, call);
    const hook = this.#after.get(op);
    if (hook) {
      this.#after.delete(op);
      await hook();
    }
    if (rule?.kind === 'lose-reply') throw new InjectedFault(`${op} applied, its reply was lost`);
    return result;
  }
}
