import {
  type BackendAgeOffQuery,
  type BackendCount,
  type BackendListPage,
  type BackendListQuery,
  type BackendScan,
  type ClaimedRecord,
  declareCapabilities,
  FateError,
  FateErrorCode,
  type FateId,
  type FinishClaimed,
  type IdRange,
  type InstanceRecord,
  type NewRecord,
  type RecordWrite,
  type Reservation,
  type ReservationFilter,
  type RunnablePosition,
  Status,
  type StoreBackend,
  type StoreCapabilities,
  type StoredRecord,
} from '@fate/core';
import { fence, type RecordColumns, toRecord, writeArgs } from '@fate/sql-common';
import { claimManyOn } from './postgres-claims.js';
import { PostgresClock } from './postgres-clock.js';
import { type ResolvedPostgresConfig, redact } from './postgres-config.js';
import { type Connection, closeConnection, openConnection } from './postgres-connection.js';
import { toStoreError } from './postgres-errors.js';
import { finishAndClaimOn } from './postgres-finish-claims.js';
import { insertAll, insertOne } from './postgres-insert.js';
import { heartbeat, readInstances } from './postgres-liveness.js';
import { reserveOne } from './postgres-reserve.js';
import { reservationsOn, scanRunnableOn } from './postgres-scan.js';
import type { PostgresStatements } from './postgres-statements.js';

/**
 * A fate store in a PostgreSQL schema (node-postgres with a pool; queries built with
 * kysely and run as named statements). Every operation is one SQL statement, hence atomic;
 * deferrals and liveness are written and judged by the server's `clock_timestamp()` inside
 * the statements; a SUBMITTED insert NOTIFYs a channel every client LISTENs on.
 *
 * A connection lost mid-call fails the call with `FATE_STORE_UNAVAILABLE` (its outcome
 * unknown, which the guard resolves by asking again); the pool opens a new connection for
 * the next call, and the listening connection reconnects on its own.
 */
export class PostgresBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = declareCapabilities({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    wakeups: true,
    multiProcess: true,
    priorities: true,
  });
  readonly config: ResolvedPostgresConfig;
  readonly #clock = new PostgresClock();
  #connection: Connection | undefined;

  readonly #create: boolean;

  /** With `create: false` it opens an existing store only (see `OpenOptions`). */
  constructor(config: ResolvedPostgresConfig, options: { readonly create?: boolean } = {}) {
    this.config = config;
    this.#create = options.create !== false;
  }

  /** The statements (tests read their SQL for `EXPLAIN`). */
  get statements(): PostgresStatements {
    return this.#open().statements;
  }

  /** The wake-up channel of this schema. */
  get channel(): string {
    return `fate_wakeup_${this.config.schema}`;
  }

  async open(): Promise<void> {
    try {
      this.#connection = await openConnection(this.config, this.#create, this.channel, (c, st) =>
        this.#clock.calibrate(c, st),
      );
    } catch (err) {
      throw toStoreError(err, 'opening', this.#where());
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) await closeConnection(connection);
  }

  now(): number {
    return this.#clock.now(this.#open());
  }

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#run('insert', async ({ pool, statements, notifier }) => {
      const inserted = await insertOne(pool, statements, id, record);
      if (inserted && record.status === Status.SUBMITTED) notifier.notify();
      return inserted;
    });
  }

  async insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    if (records.length === 0) return [];
    return this.#run('insertMany', async ({ pool, statements, notifier }) => {
      const answers = await insertAll(pool, statements, records);
      if (records.some((r, i) => answers[i] && r.record.status === Status.SUBMITTED)) {
        notifier.notify();
      }
      return answers;
    });
  }

  async read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#run('read', async ({ pool, statements }) => {
      const [row] = await statements.read.rows(pool, { id });
      return row && toRecord(row);
    });
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
    start = false,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#run('tryReserve', ({ pool, statements, groupReserve }) =>
      start
        ? groupReserve.submit({ id, reservation })
        : reserveOne(pool, statements, id, reservation, false),
    );
  }

  async claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    if (reservations[0] === undefined) return [];
    return this.#run('claimMany', ({ pool, claims }) =>
      claimManyOn(pool, claims, range, reservations),
    );
  }

  async finishAndClaim(
    id: string,
    reservation: Reservation,
    change: RecordWrite,
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<FinishClaimed> {
    return this.#run('finishAndClaim', ({ pool, finishClaims }) =>
      finishAndClaimOn(pool, finishClaims, { id, reservation, change }, range, reservations),
    );
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#run('write', async ({ pool, statements: s, groupWrite }) => {
      if (change.delete) return (await s.remove.changed(pool, fence(id, reservation))) === 1;
      return groupWrite.submit(writeArgs(id, reservation, change));
    });
  }

  async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#run('clearReservation', async ({ pool, statements }) => {
      return (await statements.clearReservation.changed(pool, fence(id, reservation))) === 1;
    });
  }

  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    if (statuses?.size === 0) return [];
    return this.#run('list', async ({ pool, statements }) => {
      const query = statements.list(statuses && [...statuses]);
      const { rows } = await pool.query<RecordColumns & { id: string }>(query.sql, [
        ...query.parameters,
      ]);
      return rows.map((row) => ({ id: row.id, record: toRecord(row) }));
    });
  }

  ageOffDue(q: BackendAgeOffQuery): Promise<Array<{ id: string; finishedAt: number }>> {
    return this.#run('ageOffDue', ({ pool, admin }) => admin.ageOffDue(pool, q));
  }

  deleteAgedOff(ids: readonly string[], q: BackendAgeOffQuery): Promise<number> {
    return this.#run('deleteAgedOff', ({ pool, admin }) => admin.deleteAgedOff(pool, ids, q));
  }

  counts(): Promise<BackendCount[]> {
    return this.#run('counts', ({ pool, admin }) => admin.counts(pool));
  }

  listPage(q: BackendListQuery): Promise<BackendListPage> {
    return this.#run('listPage', ({ pool, admin }) => admin.listPage(pool, q));
  }

  async scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return this.#run('scanRunnable', ({ pool, statements }) =>
      scanRunnableOn(pool, statements, range, limit, after),
    );
  }

  async reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#run('reservations', ({ pool, statements }) =>
      reservationsOn(pool, statements, filter),
    );
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    await this.#run('heartbeat', (connection) =>
      heartbeat(connection, this.#clock, { lockId, state, ttlMs }),
    );
  }

  /** Also deletes the records past their time (crashed engines' rows must not pile up). */
  async instances(): Promise<InstanceRecord[]> {
    return this.#run('instances', readInstances);
  }

  async subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    return this.#run('subscribeWakeups', ({ wakeups }) => wakeups.subscribe(listener));
  }

  #where(): string {
    return `${redact(this.config.connectionString)} schema ${this.config.schema}`;
  }

  #open(): Connection {
    if (!this.#connection) {
      throw new FateError(FateErrorCode.CLOSED, `PostgreSQL store ${this.#where()} is not open`);
    }
    return this.#connection;
  }

  async #run<T>(what: string, fn: (connection: Connection) => Promise<T>): Promise<T> {
    try {
      return await fn(this.#open());
    } catch (err) {
      throw toStoreError(err, what, this.#where());
    }
  }
}
