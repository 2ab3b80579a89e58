import type { Compilable, Kysely, RawBuilder } from 'kysely';
import type { FateSchema } from './sql-schema.js';

/**
 * What differs between fate's SQL stores where the queries are the same: each store gives
 * one of these (`sqlite-dialect.ts`, `postgres-dialect.ts`) and the shared queries are
 * built from it.
 */
export interface SqlDialect {
  /**
   * Builds and compiles this dialect's SQL on the store's tables (schema-qualified where
   * the store has a schema); it never runs a query: each store runs the compiled SQL with
   * its own driver.
   */
  readonly db: Kysely<FateSchema>;
  /**
   * The store's clock in epoch ms, an integer, read by the database inside the statement
   * that uses it: the one clock deferrals and liveness records are written and judged by.
   */
  clock(): RawBuilder<number>;
  /**
   * Makes `query` read `index` where the dialect can say so (SQLite's INDEXED BY); where
   * the planner is trusted to choose it from the partial index's predicate, `query` as is.
   */
  pin<R>(query: Compilable<R>, table: 'transactions', index: string): Compilable<R>;
}
