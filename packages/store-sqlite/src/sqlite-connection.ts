import { FateError, FateErrorCode, type FateId, type NewRecord } from '@fate/core';
import Database from 'better-sqlite3';
import { type AdminStatements, prepareAdmin } from './sqlite-admin.js';
import { retryBusy, SYNC_BUSY_MS } from './sqlite-busy.js';
import { prepareClaimSteps, prepareClaims, type SqliteClaim } from './sqlite-claims.js';
import type { ResolvedSqliteConfig } from './sqlite-config.js';
import { toStoreError } from './sqlite-errors.js';
import { prepareFile } from './sqlite-file.js';
import { prepareFinishClaims, type SqliteFinishClaim } from './sqlite-finish-claims.js';
import { GroupCommit } from './sqlite-group-commit.js';
import { insertOne } from './sqlite-insert.js';
import { migrate } from './sqlite-migrations.js';
import type { WakeupNotifier } from './sqlite-notify.js';
import { prepareStatements, type Statements } from './sqlite-statements.js';
import { openWakeups, type SqliteWakeups } from './sqlite-wakeups.js';

/** The open connection: the raw handle and what is prepared on it once. */
export interface Connection {
  readonly database: Database.Database;
  readonly statements: Statements;
  /** The indexed admin and periodic reads (age-off, counts, list pages). */
  readonly admin: AdminStatements;
  /** `claimMany` in one `BEGIN IMMEDIATE` transaction. */
  readonly claim: SqliteClaim;
  /** `finishAndClaim` in one `BEGIN IMMEDIATE` transaction. */
  readonly finishClaim: SqliteFinishClaim;
  /** `insert` of many records in one `BEGIN IMMEDIATE` transaction. */
  readonly insertAll: (records: ReadonlyArray<{ id: FateId; record: NewRecord }>) => boolean[];
  /** Writes the wake-up file after a write that made work runnable. */
  readonly notifier: WakeupNotifier;
  /** Watches it for this client's subscribers. */
  readonly wakeups: SqliteWakeups;
  /** The fenced writes of one turn of the event loop, committed together. */
  readonly group: GroupCommit;
}

/** Opens the file (creating it when the config says so), sets it up and prepares its statements. */
export async function openConnection(
  config: ResolvedSqliteConfig,
  create: boolean,
): Promise<Connection> {
  const { path, busyTimeoutMs } = config;
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
    const wakeups = openWakeups(path);
    const group = new GroupCommit(opened, busyTimeoutMs, () => wakeups.notifier.notify());
    return { ...connected, ...wakeups, group };
  } catch (err) {
    database?.close();
    throw toStoreError(err, 'opening', { path, opening: true });
  }
}

/** Flushes a pending wake-up, stops watching, closes the file. */
export async function closeConnection(connection: Connection): Promise<void> {
  await connection.group.drain();
  connection.notifier.flush();
  await connection.wakeups.close();
  connection.database.close();
}

/** WAL pages between automatic checkpoints. */
const WAL_CHECKPOINT_PAGES = 10_000;

/** Sets the connection up (WAL, schema) and prepares what it runs. Safe to repeat. */
function connect(database: Database.Database): Omit<Connection, 'notifier' | 'wakeups' | 'group'> {
  // WAL: readers never block the writer nor each other. NORMAL is durable against
  // process crashes in WAL mode (an OS crash may lose the last commits, never corrupt).
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // A checkpoint every 10,000 WAL pages (40 MB) rather than SQLite's 1,000: an age-off batch
  // dirties about 1,000 scattered pages, and a checkpoint after each wrote ~50 MB (issue 26).
  database.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
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
    finishClaim: prepareFinishClaims(database, statements, prepareClaimSteps(database, statements)),
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
