import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type BackendScan,
  type FateId,
  type IdRange,
  type NewRecord,
  type RecordWrite,
  type Reservation,
  type Status,
  type StoreBackend,
  type StoreCapabilities,
  type StoredRecord,
  sameReservation,
} from '@fate/core';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { ResolvedSqliteConfig } from './sqlite-config.js';
import { toStoreError } from './sqlite-errors.js';
import {
  deleteInstance,
  listRecords,
  listReservations,
  liveInstanceIds,
  toRecord,
} from './sqlite-queries.js';
import { type FateSchema, migrate } from './sqlite-schema.js';
import { prepareStatements, type Statements } from './sqlite-statements.js';

/** The open connection: raw handle, kysely on top of it, and the prepared hot statements. */
interface Connection {
  readonly database: Database.Database;
  readonly db: Kysely<FateSchema>;
  readonly statements: Statements;
}

/**
 * A fate store in one SQLite file (better-sqlite3 through kysely), shared by any number of
 * processes. WAL mode lets readers run beside the one writer; each atomic operation is a
 * single SQL statement (or one `BEGIN IMMEDIATE` transaction), and a writer that finds
 * the file locked waits up to `busyTimeoutMs`, then fails with `FATE_STORE_UNAVAILABLE`.
 *
 * better-sqlite3 is synchronous: each call runs to completion before it returns its
 * promise, which is also why one connection needs no lock of its own.
 */
export class SqliteBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = Object.freeze({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    // SQLite has no way to push to other processes; work finders poll.
    wakeups: false,
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
    let database: Database.Database | undefined;
    try {
      mkdirSync(dirname(this.config.path), { recursive: true });
      database = new Database(this.config.path, { timeout: this.config.busyTimeoutMs });
      // WAL: readers never block the writer nor each other. NORMAL is durable against
      // process crashes in WAL mode (an OS crash may lose the last commits, never corrupt).
      database.pragma('journal_mode = WAL');
      database.pragma('synchronous = NORMAL');
      const db = new Kysely<FateSchema>({ dialect: new SqliteDialect({ database }) });
      migrate(database, db);
      this.#connection = { database, db, statements: prepareStatements(database, db) };
    } catch (err) {
      database?.close();
      throw toStoreError(err, `opening ${this.config.path}`);
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (!connection) return;
    // kysely closes the database only if it ever ran a query; close it in any case.
    await connection.db.destroy();
    if (connection.database.open) connection.database.close();
  }

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#call('insert', (s) => s.insert.run({ id, ...record }).changes === 1);
  }

  async read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#call('read', (s) => {
      const row = s.read.get({ id });
      return row && toRecord(row);
    });
  }

  async tryReserve(
    id: FateId,
    reservation: Reservation,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    const fence = { id, lockId: reservation.lockId, uuid: reservation.uuid };
    return this.#call('tryReserve', (s) => {
      for (;;) {
        const row = s.reserve.get(fence);
        if (row) return toRecord(row);
        const holder = s.holder.get({ id });
        if (!holder) return 'absent';
        if (
          holder.res_lock !== null &&
          !sameReservation({ lockId: holder.res_lock, uuid: holder.res_uuid ?? '' }, reservation)
        ) {
          return 'held';
        }
        // Released (or inserted) between the two statements: as of now it is free, so
        // try again rather than report a stale "held".
      }
    });
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    const fence = { id, lockId: reservation.lockId, uuid: reservation.uuid };
    return this.#call('write', (s) => {
      if (change.delete) return s.remove.run(fence).changes === 1;
      const release = change.release;
      return (
        s.write.run({
          ...fence,
          status: change.status ?? null,
          stack: change.stack ?? null,
          info: change.info ?? null,
          // The fence already proved the stored reservation is this one: keep it, or drop it.
          newLock: release ? null : reservation.lockId,
          newUuid: release ? null : reservation.uuid,
          deferUntil: release ? release.deferUntil : null,
        }).changes === 1
      );
    });
  }

  async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    const fence = { id, lockId: reservation.lockId, uuid: reservation.uuid };
    return this.#call('clearReservation', (s) => s.clearReservation.run(fence).changes === 1);
  }

  async list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    return this.#async('list', (db) => listRecords(db, statuses));
  }

  async scanRunnable(range: IdRange | undefined, now: number): Promise<BackendScan> {
    return this.#call('scanRunnable', (s) => {
      const start = range?.start;
      const end = range?.end;
      const statement =
        start === undefined
          ? end === undefined
            ? s.scanAll
            : s.scanTo
          : end === undefined
            ? s.scanFrom
            : s.scanBetween;
      // The partial index holds only runnable, unreserved rows, in id order; the statement
      // seeks to `start` and stops at `end`, so every row it returns is one it read.
      const rows = statement.all({ start: start ?? '', end: end ?? '' });
      const ids: string[] = [];
      let nextDeferralAt: number | undefined;
      for (const row of rows) {
        if (row.defer_until <= now) ids.push(row.id);
        else nextDeferralAt = Math.min(nextDeferralAt ?? row.defer_until, row.defer_until);
      }
      return { ids, itemsRead: rows.length, ...(nextDeferralAt ? { nextDeferralAt } : {}) };
    });
  }

  async reservations(): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#async('reservations', listReservations);
  }

  async heartbeat(instanceId: string, timeoutMs: number): Promise<void> {
    this.#call('heartbeat', (s) =>
      s.heartbeat.run({ id: instanceId, expiresAt: Date.now() + timeoutMs }),
    );
  }

  async removeInstance(instanceId: string): Promise<void> {
    return this.#async('removeInstance', (db) => deleteInstance(db, instanceId));
  }

  async liveInstances(now: number): Promise<string[]> {
    return this.#async('liveInstances', (db) => liveInstanceIds(db, now));
  }

  async subscribeWakeups(_listener: () => void): Promise<() => Promise<void>> {
    return async () => {};
  }

  #open(): Connection {
    if (!this.#connection) throw new TypeError('the SQLite backend is not open');
    return this.#connection;
  }

  /** Runs a hot statement synchronously, mapping file errors. */
  #call<T>(what: string, fn: (statements: Statements) => T): T {
    const { statements } = this.#open();
    try {
      return fn(statements);
    } catch (err) {
      throw toStoreError(err, what);
    }
  }

  /** Runs a kysely query, mapping file errors. */
  async #async<T>(what: string, fn: (db: Kysely<FateSchema>) => Promise<T>): Promise<T> {
    const { db } = this.#open();
    try {
      return await fn(db);
    } catch (err) {
      throw toStoreError(err, what);
    }
  }
}
