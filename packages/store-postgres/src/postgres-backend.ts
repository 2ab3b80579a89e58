import { userInfo } from 'node:os';
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
  ServerClock,
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
  type RecordColumns,
  scanPage,
  toClaimed,
  toRecord,
  toReservations,
  writeArgs,
} from '@fate/sql-common';
import pg from 'pg';
import { type PostgresAdmin, postgresAdmin } from './postgres-admin.js';
import { claimStatements } from './postgres-claims.js';
import { type ResolvedPostgresConfig, redact } from './postgres-config.js';
import { toStoreError } from './postgres-errors.js';
import { migrate } from './postgres-migrations.js';
import { WakeupNotifier } from './postgres-notify.js';
import { type PostgresStatements, postgresStatements } from './postgres-statements.js';
import { PostgresWakeups } from './postgres-wakeups.js';

/** node-postgres returns int8 as text by default; epoch ms fit a double exactly. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? Number
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/** The open connection pools and what runs on them. */
interface Connection {
  readonly pool: pg.Pool;
  /**
   * Liveness (heartbeats, reading liveness records, the clock) on connections of its own,
   * so a pool saturated by workers never delays a heartbeat past the liveness timeout.
   */
  readonly control: pg.Pool;
  readonly statements: PostgresStatements;
  /** `claimMany`, one statement per range shape. */
  readonly claims: ReturnType<typeof claimStatements>;
  /** The indexed admin and periodic reads (age-off, counts, list pages). */
  readonly admin: PostgresAdmin;
  readonly wakeups: PostgresWakeups;
  readonly notifier: WakeupNotifier;
}

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
  });
  readonly config: ResolvedPostgresConfig;
  readonly #clock = new ServerClock();
  #connection: Connection | undefined;
  #calibrating = false;

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
    const pool = new pg.Pool(this.#clientConfig(this.config.poolSize));
    const control = new pg.Pool(this.#clientConfig(2));
    // An idle connection that dies (server restart) is reported here; the pool drops it
    // and the next call gets a new one. Without a handler it would crash the process.
    pool.on('error', () => undefined);
    control.on('error', () => undefined);
    try {
      if (!this.#create) await requireStore(pool, this.config.schema);
      await migrate(pool, this.config.schema);
      const statements = postgresStatements(this.config.schema);
      for (let i = 0; i < 3; i++) await this.#calibrate(control, statements);
      const listener = () => new pg.Client(this.#clientConfig(1));
      const wakeups = new PostgresWakeups(listener, this.channel);
      const channel = this.channel;
      const notifier = new WakeupNotifier(() => statements.notify.rows(control, { channel }));
      const admin = postgresAdmin(this.config.schema);
      const claims = claimStatements(this.config.schema);
      this.#connection = { pool, control, statements, claims, admin, wakeups, notifier };
    } catch (err) {
      await Promise.all([pool.end(), control.end()]).catch(() => undefined);
      throw toStoreError(err, 'opening', this.#where());
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (!connection) return;
    await connection.notifier.flush();
    await connection.wakeups.close();
    await Promise.all([connection.pool.end(), connection.control.end()]);
  }

  now(): number {
    const connection = this.#open();
    // A client that does not heartbeat reads the server clock again now and then, in the
    // background: the estimate drifts with this machine's monotonic clock meanwhile.
    if (this.#clock.ageMs > 30_000 && !this.#calibrating) {
      this.#calibrating = true;
      this.#calibrate(connection.control, connection.statements)
        .catch(() => undefined)
        .finally(() => {
          this.#calibrating = false;
        });
    }
    return Math.round(this.#clock.now());
  }

  async insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#run('insert', async ({ pool, statements, notifier }) => {
      const { status, stack, info, op, deferMs = 0 } = record;
      const inserted =
        (await statements.insert.changed(pool, { id, status, stack, info, op, deferMs })) === 1;
      if (inserted && status === Status.SUBMITTED) notifier.notify();
      return inserted;
    });
  }

  async insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    if (records.length === 0) return [];
    return this.#run('insertMany', async ({ pool, statements, notifier }) => {
      const rows = await statements.insertMany.rows(pool, {
        ids: records.map((r) => r.id),
        statuses: records.map((r) => r.record.status),
        stacks: records.map((r) => r.record.stack),
        infos: records.map((r) => r.record.info),
        ops: records.map((r) => r.record.op),
        defers: records.map((r) => r.record.deferMs ?? 0),
      });
      // An id given twice is inserted once: the first mention gets the answer.
      const inserted = new Set(rows.map((row) => row.id));
      const answers = records.map((r) => inserted.delete(r.id));
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
    const args = fence(id, reservation);
    return this.#run('tryReserve', async ({ pool, statements: s }) => {
      for (;;) {
        if (start) {
          // a SUBMITTED record is started by the same statement; answered as found
          const [started] = await s.reserveToRun.rows(pool, args);
          if (started) return { ...toRecord(started), status: Status.SUBMITTED };
        }
        const [row] = await s.reserve.rows(pool, args);
        // SUBMITTED after all (released between the two statements): held by us now, so
        // the next turn's reserveToRun starts it
        if (row && start && row.status === Status.SUBMITTED) continue;
        if (row) return toRecord(row);
        const [holder] = await s.holder.rows(pool, { id });
        const verdict = holderVerdict(holder, reservation);
        if (verdict !== 'free') return verdict;
      }
    });
  }

  async claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    const lockId = reservations[0]?.lockId;
    if (lockId === undefined) return [];
    const uuids = reservations.map((r) => r.uuid);
    return this.#run('claimMany', async ({ pool, claims }) => {
      const [statement, bounds] = forRange(claims, range);
      const rows = await statement.rows(pool, { ...bounds, lockId, uuids, limit: uuids.length });
      return rows.map((row) => toClaimed(row));
    });
  }

  async write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#run('write', async ({ pool, statements: s }) => {
      if (change.delete) return (await s.remove.changed(pool, fence(id, reservation))) === 1;
      return (await s.write.changed(pool, writeArgs(id, reservation, change))) === 1;
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

  async scanRunnable(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    return this.#run('scanRunnable', async ({ pool, statements }) => {
      const [statement, bounds] = forRange(statements.scan, range);
      // An index range scan of the partial runnable index, stopped at the limit: a full
      // page ends at its last row, due or not.
      return scanPage(await statement.rows(pool, { ...bounds, limit }), limit);
    });
  }

  async reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    const { range, lockId } = filter;
    return this.#run('reservations', async ({ pool, statements }) => {
      if (!range && lockId !== undefined) {
        return toReservations(await statements.reservedBy.rows(pool, { lockId }));
      }
      const [statement, bounds] = forRange(statements.reserved, range);
      return toReservations(await statement.rows(pool, bounds), lockId);
    });
  }

  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    await this.#run('heartbeat', async ({ control, statements }) => {
      const sentAt = performance.now();
      const args = { lockId, state, ttlMs: Math.ceil(ttlMs) };
      const [row] = await statements.heartbeat.rows(control, args);
      if (row) this.#clock.observe(row.now, sentAt);
    });
  }

  /** Also deletes the records past their time (crashed engines' rows must not pile up). */
  async instances(): Promise<InstanceRecord[]> {
    return this.#run('instances', async ({ control, statements }) => {
      const { records, lapsed } = livenessRecords(await statements.liveness.rows(control, {}));
      if (lapsed) await statements.forget.changed(control, {});
      return records;
    });
  }

  async subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    return this.#run('subscribeWakeups', ({ wakeups }) => wakeups.subscribe(listener));
  }

  /** Reads the server's clock once, timing the round trip. */
  async #calibrate(pool: pg.Pool, statements: PostgresStatements): Promise<void> {
    const sentAt = performance.now();
    const [row] = await statements.now.rows(pool, {});
    if (row) this.#clock.observe(row.now, sentAt);
  }

  #clientConfig(max: number): pg.PoolConfig {
    return {
      connectionString: withOsUser(this.config.connectionString),
      max,
      types,
      keepAlive: true,
      query_timeout: this.config.queryTimeoutMs,
      connectionTimeoutMillis: this.config.queryTimeoutMs,
      idleTimeoutMillis: 10_000,
      application_name: 'fate',
    };
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

/**
 * A URL without a user name connects as the OS user, as libpq does: node-postgres falls
 * back to `PGUSER` and `USER` only, which a service or CI job may not have set.
 */
function withOsUser(connectionString: string): string {
  const url = new URL(connectionString);
  if (url.username !== '' || process.env.PGUSER || process.env.USER) return connectionString;
  url.username = userInfo().username;
  return url.href;
}

/** Without `create`: a schema that does not exist, or holds no fate store, is refused untouched. */
async function requireStore(pool: pg.Pool, schema: string): Promise<void> {
  const { rows } = await pool.query<{ meta: string | null }>('SELECT to_regclass($1) AS meta', [
    `${schema}.fate_meta`,
  ]);
  if (rows[0]?.meta == null) {
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `PostgreSQL store: no such store: schema ${schema} holds no fate store (opened without create)`,
    );
  }
}
