import type { FateSchema, SqlDialect } from '@fate/sql-common';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';

/** Builds and compiles PostgreSQL SQL; never runs it (node-postgres does, as named statements). */
const compiler = new Kysely<FateSchema>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The server's clock in epoch ms, an integer, as every statement reads it. */
export const SERVER_CLOCK = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * PostgreSQL's side of the shared queries, on the tables of `schema`. The clock is the
 * server's `clock_timestamp()` (the time at the moment of evaluation, not the transaction's
 * start as `now()` is), so every client judges by one clock whatever its own says. The
 * planner picks the partial indexes from their predicates, which the queries carry as
 * literals: no pinning.
 */
export function postgresDialect(schema: string): SqlDialect {
  return {
    db: compiler.withSchema(schema),
    clock: () => sql<number>`${sql.raw(SERVER_CLOCK)}`,
    pin: (query) => query,
  };
}
