import { RUNNABLE_STATUSES } from '@fate/core';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';

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
  /** Its priority (-5..5), set at insert and never changed; 0 for rows written before. */
  priority: number;
  /** When it finished (age-off stamp, store clock); NULL while unfinished. */
  finished_at: number | null;
  /** `finished_at + retainMs` for one with its own retention; else NULL. */
  due_at: number | null;
}

/** One liveness record: the guard's opaque state, kept at least until `forget_at`. */
export interface LivenessRow {
  lock_id: string;
  state: string;
  /** Epoch ms of the store's clock after which the row may be deleted. */
  forget_at: number;
}

/** Bookkeeping of the store, e.g. `schema_version`. */
export interface FateMetaRow {
  key: string;
  value: string;
}

/** The tables of a fate SQL store, for kysely. */
export interface FateSchema {
  transactions: TransactionRow;
  liveness: LivenessRow;
  fate_meta: FateMetaRow;
}

/** The partial index that holds exactly the runnable, unreserved transactions. */
export const RUNNABLE_INDEX = 'transactions_runnable';
/** The partial index of held reservations, for the dead-reservation cleaner. */
export const RESERVED_INDEX = 'transactions_reserved';

/** Finished rows without their own retention, by finish time (age-off). */
export const FINISHED_INDEX = 'transactions_finished';
/** Finished rows with their own retention, by due time (age-off). */
export const DUE_INDEX = 'transactions_due';
/** Every row by status and op (counts; list by status). */
export const STATUS_OP_INDEX = 'transactions_status_op';

/**
 * "Runnable and unreserved", shared by the partial index and the scan. A planner uses a
 * partial index only when the query's WHERE implies the index's, so both are built from
 * this one expression, with the statuses as literals (a bound parameter would not prove
 * the index applies, neither to SQLite nor to a PostgreSQL generic plan).
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
