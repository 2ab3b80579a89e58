import type { FateSchema, SqlDialect } from '@fate/sql-common';
import {
  type Compilable,
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';

/**
 * SQLite's side of the shared queries. Statements are compiled by a kysely that never
 * runs anything (a dummy driver): better-sqlite3 runs them directly, synchronously, inside
 * the backend's busy retry, where kysely's driver would add an async mutex and a second
 * error path for nothing.
 */
export const sqliteDialect: SqlDialect = {
  db: new Kysely<FateSchema>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  /**
   * SQLite reads the host's wall clock in C (not JavaScript's `Date`, so a process whose JS
   * clock is faked or skewed judges like every other); `subsec` gives ms, `round` removes
   * the float error of `* 1000`.
   */
  clock: () => sql<number>`cast(round(unixepoch('subsec') * 1000) as integer)`,
  pin: indexedBy,
};

/**
 * Pins a query to `index` with SQLite's INDEXED BY, which kysely does not build, so it is
 * added to the compiled SQL. Statistics (ANALYZE) could otherwise move a bounded query to
 * the primary key, which reads every row of the range instead of the indexed ones; and
 * should the index ever stop matching the query, preparing fails at open instead of the
 * query silently reading the whole table.
 */
function indexedBy<R>(query: Compilable<R>, table: string, index: string): Compilable<R> {
  return {
    compile() {
      const compiled = query.compile();
      const from = `from "${table}"`;
      if (compiled.sql.split(from).length !== 2) {
        throw new Error(`cannot pin ${index}: expected one ${from} in ${compiled.sql}`);
      }
      return { ...compiled, sql: compiled.sql.replace(from, `${from} indexed by "${index}"`) };
    },
  };
}
