import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
} from '@fate/core';
import {
  adminQueries,
  type ListRowColumns,
  mergeDue,
  toCounts,
  toListPage,
} from '@fate/sql-common';
import type { Database } from 'better-sqlite3';
import type { Compilable } from 'kysely';
import { sqliteDialect } from './sqlite-dialect.js';
import { PreparedQuery } from './sqlite-prepared.js';

const queries = adminQueries(sqliteDialect);

/** The periodic and admin reads, prepared once per connection (each reads an index). */
export function prepareAdmin(database: Database) {
  const finishedDue = new PreparedQuery(database, queries.finishedDue);
  const ownDue = new PreparedQuery(database, queries.ownDue);
  // Kept by triggers (sqlite-migrations.ts): a few rows, not a scan of the store.
  const counts = database.prepare<[], { status: string; op: string; count: number }>(
    'SELECT status, op, n AS count FROM fate_counts WHERE n > 0',
  );
  const all = <R>(query: Compilable<R>): R[] => {
    const compiled = query.compile();
    return database.prepare<unknown[], R>(compiled.sql).all(...compiled.parameters);
  };
  return {
    ageOffDue(q: BackendAgeOffQuery): Array<{ id: string; finishedAt: number }> {
      return mergeDue(finishedDue.all(q), ownDue.all(q), q.limit);
    },
    deleteAgedOff(ids: readonly string[], q: BackendAgeOffQuery): number {
      const compiled = queries.deleteAgedOff(ids, q).compile();
      return database.prepare(compiled.sql).run(...compiled.parameters).changes;
    },
    counts(): BackendCount[] {
      return toCounts(counts.all());
    },
    /** Two reads of one snapshot (a read transaction), so the window's end matches its rows. */
    listPage(q: BackendListQuery): BackendListPage {
      return database.transaction(() => {
        const rows = all<ListRowColumns>(queries.listPage(q));
        const end = rows.length < q.limit ? all(queries.listWindowEnd(q))[0] : undefined;
        return toListPage(rows, end as { n: number; last: string | null } | undefined, q.limit);
      })();
    },
  };
}

export type AdminStatements = ReturnType<typeof prepareAdmin>;
