import type { StoreBackend } from '../contract/backend.js';
import type { StoreCapabilities } from '../contract/capabilities.js';
import type { ClaimOptions, ClaimResult } from '../contract/claim-types.js';
import type { FateStore } from '../contract/fate-store.js';
import type { FatesStore } from '../contract/fates-store.js';
import type {
  InstanceRecordView,
  LiveInstance,
  RegisterOptions,
} from '../contract/liveness-types.js';
import { newLockId } from '../contract/lock-id.js';
import type { ResolvedStoreOptions } from '../contract/options.js';
import type {
  AgeOffCandidate,
  AgeOffQuery,
  ListPage,
  ListQuery,
  StoreCounts,
  StoreQueryCosts,
} from '../contract/query-types.js';
import type {
  AgeOffOptions,
  AgeOffResult,
  FateView,
  IdRange,
  ListFilter,
  ReservationEntry,
  ReserveOptions,
  ScanOptions,
  ScanResult,
  SeedRequest,
  SeedResult,
  TryReserveOptions,
  TxSummary,
} from '../contract/types.js';
import { invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import { claimNext } from './claim-next.js';
import type { ClaimHost } from './claims.js';
import { claimRunnable } from './claims.js';
import { ClientLiveness } from './client-liveness.js';
import { DeadHolders } from './dead-holders.js';
import { GuardedCall } from './guarded-call.js';
import { GuardedReads } from './guarded-reads.js';
import { ReservationLedger } from './reservation-ledger.js';
import { Reserving } from './reserving.js';
import { createNew, newRecord, seedMany } from './seeding.js';

/** The runtime guard around one opened backend; `createFatesStore` makes it. */
export class GuardedFatesStore implements FatesStore {
  readonly lockId: string;
  readonly #backend: StoreBackend;
  readonly #options: ResolvedStoreOptions;
  readonly #ledger: ReservationLedger;
  readonly #liveness: ClientLiveness;
  readonly #deadHolders: DeadHolders;
  readonly #gate: GuardedCall;
  readonly #reserving: Reserving;
  readonly #reads: GuardedReads;
  readonly #claimHost: ClaimHost;
  #closing?: Promise<void>;

  constructor(backend: StoreBackend, options: ResolvedStoreOptions) {
    this.#backend = backend;
    this.#options = options;
    this.#gate = new GuardedCall(backend);
    this.lockId = newLockId(options.instanceId);
    const caller = this.#gate;
    const clock = () => backend.now();
    this.#ledger = new ReservationLedger(caller, this.lockId);
    this.#liveness = new ClientLiveness(this.lockId, options.livenessTimeoutMs, caller, clock);
    this.#reads = new GuardedReads(backend, caller);
    this.#deadHolders = new DeadHolders(this.lockId, caller, this.#ledger, this.#liveness);
    this.#reserving = new Reserving(this.lockId, caller, this.#ledger, {
      backend: caller,
      maxRecordBytes: backend.capabilities.maxRecordBytes,
      ended: (uuid) => this.#ledger.forget(uuid),
    });
    this.#claimHost = {
      lockId: this.lockId,
      backend,
      caller,
      ledger: this.#ledger,
      tryReserve: (id) => this.tryReserve(id, { start: true }),
      handle: (id, reservation, record) => this.#reserving.handle(id, reservation, record, true),
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
    return createNew(this.#gate, newRecord(this.#backend.now()));
  }

  async seed(request: SeedRequest): Promise<SeedResult> {
    const [result] = await this.seedMany([request]);
    return result as SeedResult;
  }

  async seedMany(requests: readonly SeedRequest[]): Promise<SeedResult[]> {
    const max = this.capabilities.maxRecordBytes;
    return seedMany(this.#gate, requests, () => this.#backend.now(), max);
  }

  tryReserve(id: FateId, options?: TryReserveOptions): Promise<FateStore | undefined> {
    return this.#reserving.tryReserve(id, options);
  }

  /** Whether `claimRunnable` is one backend call (`claimMany`) or a scan plus one per id. */
  get batchedClaims(): boolean {
    return typeof this.#backend.claimMany === 'function';
  }

  claimRunnable(range: IdRange | undefined, options: ClaimOptions): Promise<ClaimResult> {
    return claimRunnable(this.#claimHost, range, options);
  }

  /** Whether `claimNext` rides on the finishing write (`finishAndClaim`) or follows it. */
  get batchedFinish(): boolean {
    return typeof this.#backend.finishAndClaim === 'function';
  }

  claimNext(
    fate: FateStore,
    range: IdRange | undefined,
    options: ClaimOptions,
  ): Promise<ClaimResult> {
    return claimNext(this.#claimHost, fate, range, options);
  }

  reserve(id: FateId, options: ReserveOptions = {}): Promise<FateStore> {
    return this.#reserving.reserve(id, options);
  }

  forceDelete(id: FateId, options: ReserveOptions = {}): Promise<void> {
    return this.#reserving.forceDelete(id, options);
  }

  read(id: FateId): Promise<FateView> {
    return this.#reads.read(id);
  }

  list(filter: ListFilter = {}): Promise<TxSummary[]> {
    return this.#reads.list(filter);
  }

  get queryCosts(): StoreQueryCosts {
    return this.#reads.queryCosts;
  }

  listPage(query: ListQuery = {}): Promise<ListPage> {
    return this.#reads.listPage(query);
  }

  counts(): Promise<StoreCounts> {
    return this.#reads.counts();
  }

  ageOffDue(query: AgeOffQuery = {}): Promise<AgeOffCandidate[]> {
    return this.#reads.ageOffDue(query);
  }

  scanRunnable(range?: IdRange, options?: ScanOptions): Promise<ScanResult> {
    return this.#reads.scanRunnable(range, options);
  }

  reservations(range?: IdRange): Promise<ReservationEntry[]> {
    return this.#deadHolders.reservations(range);
  }

  async registerInstance(options?: RegisterOptions): Promise<void> {
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
    return this.#deadHolders.clearDead(range, options?.sweepStrays === true);
  }

  releaseOrphans(): Promise<ReservationEntry[]> {
    return this.#deadHolders.releaseOrphans();
  }

  ageOff(options?: AgeOffOptions): Promise<AgeOffResult> {
    return this.#reads.ageOff(this, options);
  }

  async onWakeup(listener: () => void): Promise<() => Promise<void>> {
    if (typeof listener !== 'function') throw invalidArgument('onWakeup needs a function');
    return this.#gate.call('onWakeup', (b) => b.subscribeWakeups(listener));
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
      this.#gate.close();
      this.#ledger.close();
      await this.#backend.close();
    }
  }
}
