import { randomUUID } from 'node:crypto';
import { FateError, FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import { type FateId, parseFateId } from '../ids.js';
import { Status } from '../status.js';
import { ageOff } from './age-off.js';
import type { StoreBackend, StoredRecord } from './backend.js';
import type { StoreCapabilities } from './capabilities.js';
import { type ClaimHost, type ClaimOptions, type ClaimResult, claimRunnable } from './claims.js';
import { ClientLiveness } from './client-liveness.js';
import { decodeStatus, decodeView } from './codec.js';
import type { FateStore } from './fate-store.js';
import type { FatesStore } from './fates-store.js';
import { newLockId } from './lock-id.js';
import { type ResolvedStoreOptions, resolveStoreOptions, type StoreOptions } from './options.js';
import type {
  AgeOffCandidate,
  AgeOffQuery,
  ListPage,
  ListQuery,
  StoreCounts,
  StoreQueryCosts,
} from './query-types.js';
import { ReservationLedger } from './reservation-ledger.js';
import { type HandleHost, ReservedFate } from './reserved-fate.js';
import { retryUnknown } from './retry.js';
import { scanPage } from './scan-page.js';
import { createNew, insertSeeds, newRecord, prepareSeed, type RetriedCaller } from './seeding.js';
import * as queries from './store-queries.js';
import { checkListFilter, summarizeRows } from './summarize.js';
import type {
  AgeOffOptions,
  AgeOffResult,
  FateView,
  IdRange,
  InstanceRecordView,
  ListFilter,
  LiveInstance,
  RegisterOptions,
  Reservation,
  ReservationEntry,
  ReserveOptions,
  ScanOptions,
  ScanResult,
  SeedRequest,
  SeedResult,
  TryReserveOptions,
  TxSummary,
} from './types.js';
import { untilFree } from './until-free.js';

/**
 * Opens `backend` and wraps it in the runtime guard every backend shares: argument
 * validation, data encoding, preconditions, liveness judgement, retries of lost replies,
 * open-once / close-once and error mapping.
 */
export async function createFatesStore(
  backend: StoreBackend,
  options?: StoreOptions,
): Promise<FatesStore> {
  const resolved = resolveStoreOptions(options);
  try {
    await backend.open();
  } catch (cause) {
    throw toFateError(cause, 'opening the store failed');
  }
  return new GuardedFatesStore(backend, resolved);
}

function toFateError(err: unknown, what: string): Error {
  if (err instanceof FateError || err instanceof TypeError || err instanceof RangeError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new FateError(FateErrorCode.STORE_UNAVAILABLE, `${what}: ${detail}`, { cause: err });
}

class GuardedFatesStore implements FatesStore {
  readonly lockId: string;
  readonly #backend: StoreBackend;
  readonly #options: ResolvedStoreOptions;
  readonly #ledger: ReservationLedger;
  readonly #liveness: ClientLiveness;
  readonly #host: HandleHost;
  #closed = false;
  #closing?: Promise<void>;

  constructor(backend: StoreBackend, options: ResolvedStoreOptions) {
    this.#backend = backend;
    this.#options = options;
    this.lockId = newLockId(options.instanceId);
    this.#ledger = new ReservationLedger(
      (id, reservation) =>
        this.#call('clearReservation', (b) => b.clearReservation(id, reservation)),
      async () =>
        (await this.#call('reservations', (b) => b.reservations({ lockId: this.lockId }))).filter(
          (r) => r.reservation.lockId === this.lockId,
        ),
    );
    const caller = {
      call: <T>(what: string, fn: (b: StoreBackend) => Promise<T>) => this.#call(what, fn),
      retried: <T>(what: string, fn: (b: StoreBackend) => Promise<T>, onRetry?: () => void) =>
        this.#retried(what, fn, onRetry),
    };
    this.#liveness = new ClientLiveness(
      this.lockId,
      options.livenessTimeoutMs,
      caller,
      this.#ledger,
      () => backend.now(),
    );
    this.#host = {
      maxRecordBytes: backend.capabilities.maxRecordBytes,
      write: (id, reservation, change) =>
        this.#call('write', (b) => b.write(id, reservation, change)),
      read: (id) => this.#retried('read', (b) => b.read(id)),
      ended: (uuid) => this.#ledger.forget(uuid),
    };
  }

  get instanceId(): string {
    return this.#options.instanceId;
  }

  get livenessTimeoutMs(): number {
    return this.#options.livenessTimeoutMs;
  }

  get capabilities(): StoreCapabilities {
    return this.#backend.capabilities;
  }

  now(): number {
    return this.#backend.now();
  }

  async create(): Promise<FateId> {
    return createNew(this.#retriedCaller, newRecord(this.#backend.now()));
  }

  async seed(request: SeedRequest): Promise<SeedResult> {
    const [result] = await this.seedMany([request]);
    return result as SeedResult;
  }

  async seedMany(requests: readonly SeedRequest[]): Promise<SeedResult[]> {
    if (!Array.isArray(requests)) throw invalidArgument('seedMany needs an array of requests');
    const now = this.#backend.now();
    const seeds = requests.map((r) => prepareSeed(r, now));
    for (const s of seeds) this.#checkSize(s.id, s.record.stack, s.record.info);
    return insertSeeds(this.#retriedCaller, seeds);
  }

  async tryReserve(id: FateId, options?: TryReserveOptions): Promise<FateStore | undefined> {
    parseFateId(id);
    const taken = await this.#take(id, options?.start === true);
    if (!taken) return undefined;
    return this.#handle(id, taken.reservation, taken.record, options?.start === true);
  }

  /** Whether `claimRunnable` is one backend call (`claimMany`) or a scan plus one per id. */
  get batchedClaims(): boolean {
    return typeof this.#backend.claimMany === 'function';
  }

  claimRunnable(range: IdRange | undefined, options: ClaimOptions): Promise<ClaimResult> {
    const host: ClaimHost = {
      lockId: this.lockId,
      backend: this.#backend,
      ledger: this.#ledger,
      retried: (what, fn) => this.#retried(what, fn),
      tryReserve: (id) => this.tryReserve(id, { start: true }),
      handle: (id, reservation, record) => this.#handle(id, reservation, record, true),
    };
    return claimRunnable(host, range, options);
  }

  /** A handle for a reservation this client just took; a status that does not decode is let go. */
  async #handle(
    id: FateId,
    reservation: Reservation,
    record: StoredRecord,
    start: boolean,
  ): Promise<FateStore> {
    let status: Status;
    try {
      status = decodeStatus(id, record.status);
    } catch (err) {
      // Leave a record we cannot read exactly as it was, unreserved.
      await this.#retried('tryReserve', (b) => b.clearReservation(id, reservation)).finally(() =>
        this.#ledger.forget(reservation.uuid),
      );
      throw err;
    }
    // Reserved to start, a backend answers with the status as it found it: SUBMITTED means
    // this very reservation started it (a repeat after a lost reply finds IN_PROGRESS, and
    // then nothing is assumed). The store now holds IN_PROGRESS.
    const startedNow = start && status === Status.SUBMITTED;
    const handle = new ReservedFate(
      this.#host,
      id,
      reservation,
      startedNow ? Status.IN_PROGRESS : status,
      record,
      startedNow,
    );
    this.#ledger.hold(reservation.uuid, handle);
    return handle;
  }

  reserve(id: FateId, options: ReserveOptions = {}): Promise<FateStore> {
    return untilFree(id, options, this.#readForWait, () => this.tryReserve(id));
  }

  async forceDelete(id: FateId, options: ReserveOptions = {}): Promise<void> {
    await untilFree(id, options, this.#readForWait, async () => {
      // Taken without decoding the status (backends never decode), so a record whose
      // status nobody can read can still be removed; the delete is fenced like any write.
      const taken = await this.#take(id);
      if (!taken) return undefined;
      const { reservation } = taken;
      try {
        const deleted = await this.#retried('forceDelete', (b) =>
          b.write(id, reservation, { delete: true }),
        );
        // False: gone already (a repeat after our own delete applied) or cleared meanwhile
        // (an admin client need not be live): then it is tried again like a lost race.
        if (deleted || !(await this.#retried('forceDelete', (b) => b.read(id)))) return true;
        return undefined;
      } finally {
        this.#ledger.forget(reservation.uuid);
      }
    });
  }

  /**
   * Sets a fresh reservation of ours on `id`, or says why not (undefined: absent or held).
   * A lost reply is asked again with the same reservation; when the outcome stays unknown
   * the ledger clears it in the background, so it is never left held and forgotten.
   */
  async #take(
    id: FateId,
    start = false,
  ): Promise<{ reservation: Reservation; record: StoredRecord } | undefined> {
    const reservation: Reservation = { lockId: this.lockId, uuid: randomUUID() };
    this.#ledger.pending(reservation.uuid);
    let got: StoredRecord | 'absent' | 'held';
    try {
      got = await this.#retried('tryReserve', (b) => b.tryReserve(id, reservation, start));
    } catch (err) {
      if (isFateError(err, FateErrorCode.STORE_UNAVAILABLE))
        this.#ledger.uncertain(id, reservation);
      else this.#ledger.forget(reservation.uuid);
      throw err;
    }
    if (got === 'absent' || got === 'held') {
      this.#ledger.forget(reservation.uuid);
      return undefined;
    }
    return { reservation, record: got };
  }

  readonly #readForWait = (id: FateId) => this.#retried('reserve', (b) => b.read(id));

  async read(id: FateId): Promise<FateView> {
    parseFateId(id);
    const record = await this.#retried('read', (b) => b.read(id));
    if (!record) return { id, status: 'UNKNOWN', stack: [], info: {}, deferUntil: 0 };
    return decodeView(id, record);
  }

  async list(filter: ListFilter = {}): Promise<TxSummary[]> {
    const statuses = checkListFilter(filter);
    const rows = await this.#retried('list', (b) => b.list(statuses));
    return summarizeRows(rows, statuses, filter.opName);
  }

  get queryCosts(): StoreQueryCosts {
    return queries.queryCosts(this.#backend);
  }

  listPage(query: ListQuery = {}): Promise<ListPage> {
    return queries.listPage(this.#readFn, this.#backend, query, () => this.#backend.now());
  }

  counts(): Promise<StoreCounts> {
    return queries.counts(this.#readFn, this.#backend);
  }

  ageOffDue(query: AgeOffQuery = {}): Promise<AgeOffCandidate[]> {
    return queries.ageOffDue(this.#readFn, this.#backend, query);
  }

  readonly #callFn: queries.BackendCall = (what, fn) => this.#call(what, fn);
  /** For reads only: a read asked again after a lost reply answers as the first would. */
  readonly #readFn: queries.BackendCall = (what, fn) => this.#retried(what, fn);

  scanRunnable(range?: IdRange, options?: ScanOptions): Promise<ScanResult> {
    return scanPage(range, options, (r, limit) =>
      this.#call('scanRunnable', (b) => b.scanRunnable(r, limit)),
    );
  }

  reservations(range?: IdRange): Promise<ReservationEntry[]> {
    return this.#liveness.reservations(range);
  }

  registerInstance(options?: RegisterOptions): Promise<void> {
    if (options?.group !== undefined && typeof options.group !== 'string') {
      throw invalidArgument('group must be a string');
    }
    return this.#liveness.register(options);
  }

  unregisterInstance(): Promise<void> {
    return this.#liveness.unregister();
  }

  heartbeat(): Promise<void> {
    return this.#liveness.heartbeat();
  }

  liveInstances(): Promise<LiveInstance[]> {
    return this.#liveness.liveInstances();
  }

  instanceRecords(): Promise<InstanceRecordView[]> {
    return this.#liveness.records();
  }

  async isAlive(id: string): Promise<boolean> {
    if (typeof id !== 'string') throw invalidArgument('isAlive needs a lock id or instance id');
    return this.#liveness.isAlive(id);
  }

  clearDeadReservations(
    range?: IdRange,
    options?: { readonly sweepStrays?: boolean },
  ): Promise<ReservationEntry[]> {
    return this.#liveness.clearDead(range, options?.sweepStrays === true);
  }

  releaseOrphans(): Promise<ReservationEntry[]> {
    return this.#liveness.releaseOrphans();
  }

  ageOff(options?: AgeOffOptions): Promise<AgeOffResult> {
    const b = this.#backend;
    if (typeof b.ageOffDue === 'function' && typeof b.deleteAgedOff === 'function') {
      return queries.ageOffInBatches(this.#callFn, b, options ?? {});
    }
    return ageOff(this, options);
  }

  async onWakeup(listener: () => void): Promise<() => Promise<void>> {
    if (typeof listener !== 'function') throw invalidArgument('onWakeup needs a function');
    return this.#call('onWakeup', (b) => b.subscribeWakeups(listener));
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      // A clean close says so: observers judge this lock id gone at once, not after a
      // timeout. If it fails, the record simply lapses.
      if (this.#liveness.registered) await this.#liveness.unregister().catch(() => undefined);
    } finally {
      this.#closed = true;
      this.#ledger.close();
      await this.#backend.close();
    }
  }

  #checkSize(id: string, stack: string, info: string): void {
    const size = Buffer.byteLength(stack) + Buffer.byteLength(info);
    const limit = this.capabilities.maxRecordBytes;
    if (size > limit) {
      throw new FateError(
        FateErrorCode.PAYLOAD_TOO_LARGE,
        `${id} would store ${size} bytes; this backend's limit is ${limit}`,
      );
    }
  }

  async #call<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new FateError(FateErrorCode.CLOSED, `${what}: the store is closed`);
    }
    try {
      return await fn(this.#backend);
    } catch (err) {
      throw toFateError(err, `${what} failed`);
    }
  }

  /** `#call`, asked again with the same arguments while the reply is lost. */
  #retried<T>(
    what: string,
    fn: (backend: StoreBackend) => Promise<T>,
    onRetry?: () => void,
  ): Promise<T> {
    return retryUnknown(() => this.#call(what, fn), onRetry);
  }

  readonly #retriedCaller: RetriedCaller = (what, fn, onRetry) => this.#retried(what, fn, onRetry);
}
