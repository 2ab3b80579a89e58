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
  type IdRange,
  type InstanceRecord,
  type NewRecord,
  type RecordWrite,
  type Reservation,
  type ReservationFilter,
  Status,
  type StoreBackend,
  type StoreCapabilities,
  type StoredRecord,
} from '@fate/core';
import {
  fence,
  forRange,
  holderVerdict,
  livenessRecords,
  scanPage,
  toRecord,
  toReservations,
  writeArgs,
} from '@fate/sql-common';
import Database from 'better-sqlite3';
import { type AdminStatements, prepareAdmin } from './sqlite-admin.js';
import { isBusy, retryBusy, SYNC_BUSY_MS } from './sqlite-busy.js';
import { prepareClaims, type SqliteClaim } from './sqlite-claims.js';
import type { ResolvedSqliteConfig } from './sqlite-config.js';
import { toStoreError } from './sqlite-errors.js';
import { prepareFile } from './sqlite-file.js';
import { migrate } from './sqlite-migrations.js';
import { releasesRunnable, type WakeupNotifier } from './sqlite-notify.js';
import { listRows, prepareStatements, type Statements } from './sqlite-statements.js';
import { takeTurn } from './sqlite-turns.js';
import { openWakeups, type SqliteWakeups } from './sqlite-wakeups.js';

/** The open connection: the raw handle and what is prepared on it once. */
interface Connection {
  readonly database: Database.Database;
  readonly statements: Statements;
  /** The indexed admin and periodic reads (age-off, counts, list pages). */
  readonly admin: AdminStatements;
  /** `claimMany` in one `BEGIN IMMEDIATE` transaction. */
  readonly claim: SqliteClaim;
  /** `insert` of many records in one `BEGIN IMMEDIATE` transaction. */
  readonly insertAll: (records: ReadonlyArray<{ id: FateId; record: NewRecord }>) => boolean[];
  /** Writes the wake-up file after a write that made work runnable. */
  readonly notifier: WakeupNotifier;
  /** Watches it for this client's subscribers. */
  readonly wakeups: SqliteWakeups;
}

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
  });
  readonly config: ResolvedSqliteConfig;
  #connection?: Connection;

  constructor(config: ResolvedSqliteConfig) {
    this.config = config;
  }

  /** The prepared hot statements (tests inspect their SQL and plans). */
  get statements(): Statements {
    return this.#open().statements;
  }

  async open(): Promise<void> {
    const { path, create, busyTimeoutMs } = this.config;
    let database: Database.Database | undefined;
    try {
      prepareFile(path, create);
      const opened = new Database(path, {
        timeout: Math.min(SYNC_BUSY_MS, busyTimeoutMs),
        fileMustExist: !create,
      });
      database = opened;
      if (!create) requireStore(opened, path);
      const connected = await retryBusy(() => connect(opened), busyTimeoutMs);
      // After the schema: a file that is no database leaves no wake-up file behind.
      this.#connection = { ...connected, ...openWakeups(path) };
    } catch (err) {
      database?.close();
      throw toStoreError(err, 'opening', { path, opening: true });
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (!connection) return;
    connection.notifier.flush();
    await connection.wakeups.close();
    connection.database.close();
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
    const args = fence(id, reservation);
    return this.#run('tryReserve', ({ statements: s }) => {
      for (;;) {
        if (start) {
          // a SUBMITTED record is started by the same statement; answered as found
          const started = s.reserveToRun.get(args);
          if (started) return { ...toRecord(started), status: Status.SUBMITTED };
        }
        const row = s.reserve.get(args);
        // SUBMITTED after all (another process released it between the two statements):
        // held by us now, so the next turn's reserveToRun starts it
        if (row && start && row.status === Status.SUBMITTED) continue;
        if (row) return toRecord(row);
        const verdict = holderVerdict(s.holder.get({ id }), reservation);
        if (verdict !== 'free') return verdict;
      }
    });
  }

  async claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    return this.#run('claimMany', ({ claim }) => claim(range, reservations));
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#run('write', ({ statements: s, notifier }) => {
      if (change.delete) return s.remove.run(fence(id, reservation)).changes === 1;
      const written = s.write.run(writeArgs(id, reservation, change)).changes === 1;
      if (written && releasesRunnable(change)) notifier.notify();
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

  async scanRunnable(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    return this.#run('scanRunnable', ({ statements }) => {
      const [statement, bounds] = forRange(statements.scan, range);
      // The partial index holds only runnable, unreserved rows, in id order; the statement
      // seeks to `start` and stops at `end` or the limit, so every row it returns is one it
      // read, and a full page ends at its last row whether or not that one is due.
      return scanPage(statement.all({ ...bounds, limit }), limit);
    });
  }

  async reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    const { range, lockId } = filter;
    return this.#run('reservations', ({ statements }) => {
      if (!range && lockId !== undefined) {
        return toReservations(statements.reservedBy.all({ lockId }));
      }
      const [statement, bounds] = forRange(statements.reserved, range);
      return toReservations(statement.all(bounds), lockId);
    });
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    await this.#run('heartbeat', ({ statements }) => {
      statements.heartbeat.run({ lockId, state, ttlMs: Math.ceil(ttlMs) });
    });
  }

  /** Also deletes the records past their time (crashed engines' rows must not pile up). */
  async instances(): Promise<InstanceRecord[]> {
    return this.#run('instances', ({ statements }) => {
      const { records, lapsed } = livenessRecords(statements.liveness.all({}));
      // Only when something is due: the delete takes the write lock, the read does not.
      if (lapsed) pruneLiveness(statements);
      return records;
    });
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

/** Sets the connection up (WAL, schema) and prepares what it runs. Safe to repeat. */
function connect(database: Database.Database): Omit<Connection, 'notifier' | 'wakeups'> {
  // WAL: readers never block the writer nor each other. NORMAL is durable against
  // process crashes in WAL mode (an OS crash may lose the last commits, never corrupt).
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  migrate(database);
  const statements = prepareStatements(database);
  const insertAll = database.transaction(
    (records: ReadonlyArray<{ id: FateId; record: NewRecord }>) =>
      records.map(({ id, record }) => insertOne(statements, id, record)),
  );
  return {
    database,
    statements,
    admin: prepareAdmin(database),
    claim: prepareClaims(database, statements),
    insertAll: (records) => insertAll.immediate(records),
  };
}

/** Without `create`, a file with no fate schema (empty, or another program's) is refused, untouched. */
function requireStore(database: Database.Database, path: string): void {
  const meta = database
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fate_meta'")
    .get();
  if (!meta) {
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `SQLite store ${path}: no such store: the file holds no fate store (opened without create)`,
    );
  }
}

function insertOne(statements: Statements, id: FateId, record: NewRecord): boolean {
  const { status, stack, info, op, deferMs = 0 } = record;
  return statements.insert.run({ id, status, stack, info, op, deferMs }).changes === 1;
}

/**
 * Store hygiene, best effort: another process holding the write lock will prune on its
 * own next look, so a busy file skips this rather than fail or delay the read.
 */
function pruneLiveness(statements: Statements): void {
  try {
    statements.forget.run({});
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}
