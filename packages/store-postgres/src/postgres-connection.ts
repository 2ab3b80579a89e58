import { userInfo } from 'node:os';
import { FateError, FateErrorCode, type StoredRecord, type TickBatch } from '@fate/core';
import type { WriteArgs } from '@fate/sql-common';
import pg from 'pg';
import { type PostgresAdmin, postgresAdmin } from './postgres-admin.js';
import { claimStatements } from './postgres-claims.js';
import { type ResolvedPostgresConfig, warnIfUncheckedCertificate } from './postgres-config.js';
import { finishClaimStatements } from './postgres-finish-claims.js';
import { groupReserve as batchReserves, type ReserveToRun } from './postgres-group-reserve.js';
import { groupWrite as batchWrites } from './postgres-group-write.js';
import { migrate } from './postgres-migrations.js';
import { WakeupNotifier } from './postgres-notify.js';
import { reserveOne } from './postgres-reserve.js';
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
export interface Connection {
  readonly pool: pg.Pool;
  /**
   * Liveness (heartbeats, reading liveness records, the clock) on connections of its own,
   * so a pool saturated by workers never delays a heartbeat past the liveness timeout.
   */
  readonly control: pg.Pool;
  readonly statements: PostgresStatements;
  /** The fenced writes (not deletes) of one turn of the event loop, as one statement. */
  readonly groupWrite: TickBatch<WriteArgs, boolean>;
  /** The reservations that start their record, of one turn of the event loop. */
  readonly groupReserve: TickBatch<ReserveToRun, StoredRecord | 'absent' | 'held'>;
  /** `claimMany`, one statement per range shape. */
  readonly claims: ReturnType<typeof claimStatements>;
  /** `finishAndClaim`, one statement per write and range shape. */
  readonly finishClaims: ReturnType<typeof finishClaimStatements>;
  /** The indexed admin and periodic reads (age-off, counts, list pages). */
  readonly admin: PostgresAdmin;
  readonly wakeups: PostgresWakeups;
  readonly notifier: WakeupNotifier;
}

/**
 * Opens both pools, sets the schema up (or, without `create`, requires it), prepares the
 * statements and reads the server clock (`calibrate`, three times); on failure both pools
 * are ended and the error is thrown as it came.
 */
export async function openConnection(
  config: ResolvedPostgresConfig,
  create: boolean,
  channel: string,
  calibrate: (control: pg.Pool, statements: PostgresStatements) => Promise<void>,
): Promise<Connection> {
  warnIfUncheckedCertificate(config.connectionString);
  const pool = new pg.Pool(clientConfig(config, config.poolSize));
  const control = new pg.Pool(clientConfig(config, 2));
  // An idle connection that dies (server restart) is reported here; the pool drops it
  // and the next call gets a new one. Without a handler it would crash the process.
  pool.on('error', () => undefined);
  control.on('error', () => undefined);
  try {
    if (!create) await requireStore(pool, config.schema);
    await migrate(pool, config.schema);
    const statements = postgresStatements(config.schema);
    for (let i = 0; i < 3; i++) await calibrate(control, statements);
    const listener = () => new pg.Client(clientConfig(config, 1));
    const wakeups = new PostgresWakeups(listener, channel);
    const notifier = new WakeupNotifier(() => statements.notify.rows(control, { channel }));
    const admin = postgresAdmin(config.schema);
    const claims = claimStatements(config.schema);
    const finishClaims = finishClaimStatements(config.schema);
    const { schema } = config;
    const groupWrite = batchWrites(
      schema,
      pool,
      async (args) => (await statements.write.changed(pool, args)) === 1,
    );
    const groupReserve = batchReserves(schema, pool, (c) =>
      reserveOne(pool, statements, c.id, c.reservation, true),
    );
    return {
      pool,
      control,
      statements,
      groupWrite,
      groupReserve,
      claims,
      finishClaims,
      admin,
      wakeups,
      notifier,
    };
  } catch (err) {
    await Promise.all([pool.end(), control.end()]).catch(() => undefined);
    throw err;
  }
}

/** Flushes a pending notification, stops listening, ends both pools. */
export async function closeConnection(connection: Connection): Promise<void> {
  await Promise.all([connection.groupWrite.drain(), connection.groupReserve.drain()]);
  await connection.notifier.flush();
  await connection.wakeups.close();
  await Promise.all([connection.pool.end(), connection.control.end()]);
}

function clientConfig(config: ResolvedPostgresConfig, max: number): pg.PoolConfig {
  return {
    connectionString: withOsUser(config.connectionString),
    max,
    types,
    keepAlive: true,
    query_timeout: config.queryTimeoutMs,
    connectionTimeoutMillis: config.queryTimeoutMs,
    idleTimeoutMillis: 10_000,
    application_name: 'fate',
  };
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
