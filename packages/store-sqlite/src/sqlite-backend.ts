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
import { fence, toRecord, writeArgs } from '@fate/sql-common';
import { retryBusy } from './sqlite-busy.js';
import type { ResolvedSqliteConfig } from './sqlite-config.js';
import { type Connection, closeConnection, openConnection } from './sqlite-connection.js';
import { toStoreError } from './sqlite-errors.js';
import { insertOne } from './sqlite-insert.js';
import { readInstances } from './sqlite-liveness.js';
import { releasesRunnable } from './sqlite-notify.js';
import { reserveOne } from './sqlite-reserve.js';
import { reservationsOn, scanRunnableOn } from './sqlite-scan.js';
import { listRows, type Statements } from './sqlite-statements.js';
import { takeTurn } from './sqlite-turns.js';

/**
 * A fate store in one SQLite file (better-sqlite3, queries built with kysely), shared by
 * any number of processes on one host. WAL mode lets readers run beside the one writer;
 * each operation is a single SQL statement (or one `BEGIN IMMEDIATE` transaction), and the
 * store's clock is SQLite's, read inside the statements that judge or write deferrals and
 * liveness.
 *
 * better-sqlite3 is synchronous: each statement runs to completion on the event loop,
 * which is also why one connection needs no lock of its own. A statement that finds the
 * file locked by another process waits at most `SYNC_BUSY_MS` there, then is tried again
 * after a timer, up to `busyTimeoutMs` in all, then fails with `FATE_STORE_UNAVAILABLE`.
 *
 * Wake-ups across processes go through a file beside the database, `<db>-wakeup`: a write
 * that makes work runnable (a SUBMITTED insert, a release without deferral, a cleared
 * reservation) writes one byte to it once committed, and every subscribed client watches
 * it (`fs.watch`: inotify, kqueue, ReadDirectoryChangesW), so no one polls for them.
 */
export class SqliteBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = declareCapabilities({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    // Through the wake-up file beside the database (sqlite-wakeups.ts).
    wakeups: true,
    multiProcess: true,
    priorities: true,
  });
  readonly config: ResolvedSqliteConfig;
  readonly #create: boolean;
  #connection?: Connection;

  /** With `create: false` it opens an existing store only (see `OpenOptions`). */
  constructor(config: ResolvedSqliteConfig, options: { readonly create?: boolean } = {}) {
    this.config = config;
    this.#create = options.create !== false;
  }

  /** The prepared hot statements (tests inspect their SQL and plans). */
  get statements(): Statements {
    return this.#open().statements;
  }

  async open(): Promise<void> {
    this.#connection = await openConnection(this.config, this.#create);
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) await closeConnection(connection);
  }

  now(): number {
    return (this.#open().statements.now.get({}) as { now: number }).now;
  }

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#run('insert', ({ statements, notifier }) => {
      const inserted = insertOne(statements, id, record);
      if (inserted && record.status === Status.SUBMITTED) notifier.notify();
      return inserted;
    });
  }

  async insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    if (records.length === 0) return [];
    return this.#run('insertMany', ({ insertAll, notifier }) => {
      const answers = insertAll(records);
      if (records.some((r, i) => answers[i] && r.record.status === Status.SUBMITTED)) {
        notifier.notify();
      }
      return answers;
    });
  }

  async read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#run('read', ({ statements }) => {
      const row = statements.read.get({ id });
      return row && toRecord(row);
    });
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
    start = false,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#grouped('tryReserve', ({ statements }) =>
      reserveOne(statements, id, reservation, start),
    );
  }

  async claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    return this.#run('claimMany', ({ claim }) => claim(range, reservations));
  }

  async finishAndClaim(
    id: string,
    reservation: Reservation,
    change: RecordWrite,
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<FinishClaimed> {
    return this.#grouped('finishAndClaim', ({ finishClaim }, wake) => {
      const done = finishClaim(id, reservation, change, range, reservations);
      if (done.written && releasesRunnable(change)) wake();
      return done;
    });
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#grouped('write', ({ statements: s }, wake) => {
      if (change.delete) return s.remove.run(fence(id, reservation)).changes === 1;
      const written = s.write.run(writeArgs(id, reservation, change)).changes === 1;
      if (written && releasesRunnable(change)) wake();
      return written;
    });
  }

  async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#run('clearReservation', ({ statements, notifier }) => {
      const cleared = statements.clearReservation.run(fence(id, reservation)).changes === 1;
      // Usually a dead holder's work, runnable again (a spurious wake-up costs one scan).
      if (cleared) notifier.notify();
      return cleared;
    });
  }

  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    if (statuses?.size === 0) return [];
    return this.#run('list', ({ database }) =>
      listRows(database, statuses && [...statuses]).map((row) => ({
        id: row.id,
        record: toRecord(row),
      })),
    );
  }

  async ageOffDue(q: BackendAgeOffQuery): Promise<Array<{ id: string; finishedAt: number }>> {
    return this.#run('ageOffDue', ({ admin }) => admin.ageOffDue(q));
  }

  async deleteAgedOff(ids: readonly string[], q: BackendAgeOffQuery): Promise<number> {
    return this.#run('deleteAgedOff', ({ admin }) => admin.deleteAgedOff(ids, q));
  }

  async counts(): Promise<BackendCount[]> {
    return this.#run('counts', ({ admin }) => admin.counts());
  }

  async listPage(q: BackendListQuery): Promise<BackendListPage> {
    return this.#run('listPage', ({ admin }) => admin.listPage(q));
  }

  async scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return this.#run('scanRunnable', ({ statements }) =>
      scanRunnableOn(statements, range, limit, after),
    );
  }

  async reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#run('reservations', ({ statements }) => reservationsOn(statements, filter));
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    await this.#run('heartbeat', ({ statements }) => {
      statements.heartbeat.run({ lockId, state, ttlMs: Math.ceil(ttlMs) });
    });
  }

  /** Also deletes the records past their time (crashed engines' rows must not pile up). */
  async instances(): Promise<InstanceRecord[]> {
    return this.#run('instances', ({ statements }) => readInstances(statements));
  }

  async subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    return this.#open().wakeups.subscribe(listener);
  }

  #open(): Connection {
    if (!this.#connection) {
      throw new FateError(FateErrorCode.CLOSED, `SQLite store ${this.config.path} is not open`);
    }
    return this.#connection;
  }

  /**
   * Runs a fenced write with the others of this turn of the event loop, in one transaction
   * (`GroupCommit`); maps errors.
   */
  async #grouped<T>(what: string, fn: (connection: Connection, wake: () => void) => T): Promise<T> {
    try {
      const connection = this.#open();
      return await connection.group.submit((wake) => fn(connection, wake));
    } catch (err) {
      throw toStoreError(err, what, { path: this.config.path, opening: false });
    }
  }

  /**
   * Runs synchronous statements on the open connection, after letting the event loop turn
   * if calls have kept it busy; retries a busy file; maps errors.
   */
  async #run<T>(what: string, fn: (connection: Connection) => T): Promise<T> {
    try {
      await takeTurn();
      return await retryBusy(() => fn(this.#open()), this.config.busyTimeoutMs);
    } catch (err) {
      throw toStoreError(err, what, { path: this.config.path, opening: false });
    }
  }
}
