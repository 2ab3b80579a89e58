import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
} from '@fate/core';
import { adminQueries, type ListRowColumns, mergeDue, toListPage } from '@fate/sql-common';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { postgresCounts } from './postgres-counts.js';
import { postgresDialect } from './postgres-dialect.js';
import { PgStatement } from './postgres-statements.js';
import { inTransaction } from './postgres-transaction.js';

/** The periodic and admin reads of one schema's store, each from an index or the counts. */
export function postgresAdmin(schema: string) {
  const dialect = postgresDialect(schema);
  const queries = adminQueries(dialect);
  const finishedDue = new PgStatement(queries.finishedDue);
  const ownDue = new PgStatement(queries.ownDue);
  const counts = postgresCounts(schema);
  const run = async <R extends QueryResultRow>(
    client: PoolClient,
    query: { compile(): { sql: string; parameters: readonly unknown[] } },
  ): Promise<R[]> => {
    const compiled = query.compile();
    return (await client.query<R>(compiled.sql, [...compiled.parameters])).rows;
  };
  return {
    /** Also folds the counts' change rows: every sweep, so they stay few without reads. */
    async ageOffDue(pool: Pool, q: BackendAgeOffQuery) {
      const [a, b] = await Promise.all([
        finishedDue.rows(pool, q),
        ownDue.rows(pool, q),
        counts.fold(pool),
      ]);
      return mergeDue(a, b, q.limit);
    },
    async deleteAgedOff(pool: Pool, ids: readonly string[], q: BackendAgeOffQuery) {
      const compiled = queries.deleteAgedOff(ids, q).compile();
      return (await pool.query(compiled.sql, [...compiled.parameters])).rowCount ?? 0;
    },
    async counts(pool: Pool): Promise<BackendCount[]> {
      return counts.read(pool);
    },
    /** Both reads in one snapshot (REPEATABLE READ), so the window's end matches its rows. */
    async listPage(pool: Pool, q: BackendListQuery): Promise<BackendListPage> {
      return inTransaction(
        pool,
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        async (client) => {
          const rows = await run<ListRowColumns>(client, queries.listPage(q));
          const [end] =
            rows.length < q.limit
              ? await run<{ n: string; last: string | null }>(client, queries.listWindowEnd(q))
              : [];
          return toListPage(rows, end, q.limit);
        },
      );
    },
  };
}

export type PostgresAdmin = ReturnType<typeof postgresAdmin>;
