import { RUNNABLE_STATUSES } from '@fate/core';
import {
  DummyDriver,
  type Expression,
  type ExpressionBuilder,
  Kysely,
  type RawBuilder,
  type SqlBool,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';

/** One transaction. `stack` and `info` are the guard's JSON texts, stored as they come. */
export interface TransactionRow {
  id: string;
  status: string;
  stack: string;
  info: string;
  /** Holder's lock id; NULL when unreserved (then `res_uuid` is NULL too). */
  res_lock: string | null;
  res_uuid: string | null;
  /** Epoch ms of the store's clock before which scans skip the row; 0 when not deferred. */
  defer_until: number;
  /** The op name, set at insert and never changed; '' for none. */
  op: string;
}

/** One liveness record: the guard's opaque state, kept at least until `forget_at`. */
export interface LivenessRow {
  lock_id: string;
  state: string;
  /** Epoch ms of the store's clock after which the row may be deleted. */
  forget_at: number;
}

/** Bookkeeping of this package, e.g. `schema_version`. */
export interface FateMetaRow {
  key: string;
  value: string;
}

export interface FateSchema {
  transactions: TransactionRow;
  liveness: LivenessRow;
  fate_meta: FateMetaRow;
}

/** The partial index that holds exactly the runnable, unreserved transactions. */
export const RUNNABLE_INDEX = 'transactions_runnable';
/** The partial index of held reservations, for the dead-reservation cleaner. */
export const RESERVED_INDEX = 'transactions_reserved';

/**
 * Builds and compiles queries for SQLite without ever running one: statements are run by
 * better-sqlite3 directly, synchronously, inside the backend's own busy retry (kysely's
 * driver would add an async mutex and a second error path for nothing).
 */
export const db = new Kysely<FateSchema>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/**
 * The store's clock in epoch ms, read by SQLite itself inside the statement that uses it
 * (the C library's wall clock, not JavaScript's `Date`, so a process whose JS clock is
 * faked or skewed judges and writes deferrals and leases like every other process).
 * `subsec` gives ms precision; `round` removes the float error of `* 1000`.
 */
export function storeClock(): RawBuilder<number> {
  return sql<number>`cast(round(unixepoch('subsec') * 1000) as integer)`;
}

/**
 * "Runnable and unreserved", shared by the partial index and the scan. SQLite uses a
 * partial index only when the query's WHERE contains the index's terms, so both are built
 * from this one expression, with the statuses as literals (a bound parameter would not
 * prove the index applies).
 */
export function runnableUnreserved(
  eb: ExpressionBuilder<{ transactions: TransactionRow }, 'transactions'>,
): Expression<SqlBool> {
  return eb.and([
    eb('res_lock', 'is', null),
    eb(
      'status',
      'in',
      [...RUNNABLE_STATUSES].map((s) => sql.lit(s)),
    ),
  ]);
}
