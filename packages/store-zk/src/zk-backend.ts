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
import { declareCapabilities, FateError, FateErrorCode } from '@fate/core';
import { ZkBatchMarkers } from './zk-batch-markers.js';
import { ZkClient } from './zk-client.js';
import type { ResolvedZkConfig } from './zk-config.js';
import { ZkInserter } from './zk-inserter.js';
import { ZkLayout } from './zk-layout.js';
import { ZkLiveness } from './zk-liveness.js';
import { openTree } from './zk-migrations.js';
import { ENVELOPE_RESERVE } from './zk-record-codec.js';
import { ZkRecords } from './zk-records.js';
import { ZkReservationIndex } from './zk-reservation-index.js';
import { ZkRunnableIndex } from './zk-runnable-index.js';
import { ZkScanner } from './zk-scanner.js';
import { ZkWakeups } from './zk-wakeups.js';
import { ZkWriter } from './zk-writer.js';

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
  readonly #writer: ZkWriter;

  readonly #create: boolean;

  /** With `create: false` it opens an existing store only (see `OpenOptions`). */
  constructor(config: ResolvedZkConfig, options: { readonly create?: boolean } = {}) {
    this.config = config;
    this.#create = options.create !== false;
    this.capabilities = declareCapabilities({
      maxRecordBytes: config.juteMaxBuffer - ENVELOPE_RESERVE,
      sortedScan: true,
      wakeups: true,
      multiProcess: true,
      priorities: true,
    });
    this.#client = new ZkClient(config);
    this.#layout = new ZkLayout(config.chroot);
    this.#records = new ZkRecords(this.#client, this.#layout, config.juteMaxBuffer);
    this.#runnable = new ZkRunnableIndex(this.#client, this.#layout);
    const batches = new ZkBatchMarkers(this.#client, this.#layout);
    this.#reserved = new ZkReservationIndex(this.#client, this.#layout, this.#records);
    this.#writer = new ZkWriter(this.#records, this.#runnable, this.#reserved);
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
    try {
      await this.#client.session();
      // `clock` is made last by the setup: without it there is no finished store here
      if (!this.#create && !(await this.#client.exists(this.#layout.clock))) {
        throw new FateError(
          FateErrorCode.STORE_CONFIG,
          `ZooKeeper store: no such store: ${this.config.chroot} holds no fate store (opened without create)`,
        );
      }
      await openTree(this.#client, this.#layout, this.#records, this.#reserved);
    } catch (err) {
      // A refused open (an ACL, a bad chroot, no store) must not leave a session keeping the
      // process up.
      await this.#client.disconnect();
      throw err;
    }
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
    return (await this.#client.fresh(() => this.#records.read(id)))?.record;
  }

  tryReserve(
    id: FateId,
    reservation: Reservation,
    start?: boolean,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#writer.tryReserve(id, reservation, start);
  }

  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#writer.write(id, reservation, change);
  }

  clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#writer.clearReservation(id, reservation);
  }

  /** Every record: lists all 256 buckets and reads each record (pipelined). */
  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    const all = await this.#client.fresh(() => this.#records.all());
    return statuses ? all.filter(({ record }) => statuses.has(record.status as Status)) : all;
  }

  /** In the runnable order (priority, then id): see `ZkScanner`. */
  scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return this.#client.fresh(() => this.#scanner.scan(range, limit, after));
  }

  /** The reserved records, found through the reservation markers of the filter's buckets. */
  reservations(
    filter?: ReservationFilter,
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#client.fresh(() => this.#reserved.list(filter));
  }

  heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    return this.#liveness.heartbeat(lockId, state, ttlMs);
  }

  instances(): Promise<InstanceRecord[]> {
    return this.#client.fresh(() => this.#liveness.instances());
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
}
