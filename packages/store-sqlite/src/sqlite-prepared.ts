import { NamedQuery } from '@fate/sql-common';
import type { Database, RunResult, Statement } from 'better-sqlite3';
import type { Compilable } from 'kysely';

/**
 * A shared query compiled once and prepared once as a better-sqlite3 `Statement`, so a
 * call costs one bind and one step: kysely's per-query work (building, compiling,
 * preparing: tens of µs) is paid at open, not on every hot call.
 */
export class PreparedQuery<A extends object, R> {
  readonly #query: NamedQuery<A, R>;
  readonly #statement: Statement<unknown[], R>;
  /** The SQL as prepared (`unprobed`); tests read it for `EXPLAIN QUERY PLAN`. */
  readonly sql: string;

  constructor(database: Database, build: (p: A) => Compilable<R>) {
    this.#query = new NamedQuery(build);
    this.sql = unprobed(this.#query.sql);
    this.#statement = database.prepare<unknown[], R>(this.sql);
  }

  run(args: A): RunResult {
    return this.#statement.run(...this.#query.bind(args));
  }

  get(args: A): R | undefined {
    return this.#statement.get(...this.#query.bind(args));
  }

  all(args: A): R[] {
    return this.#statement.all(...this.#query.bind(args));
  }
}

/** A string literal, a quoted name, or a parameter: the parameters are what is rewritten. */
const PARTS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g;

/**
 * `sql` with every parameter `?` written `+?` (unary plus: the same value, unchanged).
 * SQLite plans with the value bound to a bare parameter where it can use one — a LIMIT, or,
 * once `ANALYZE` has stored statistics (better-sqlite3 builds SQLite with STAT4), a column an
 * index holds compared with it — and a statement planned with a bound value is prepared
 * again every time that parameter is bound. It does not look through an operator, so `+?` is
 * planned once. Measured on SQLite 3.53.2 (better-sqlite3 12): the claim's walk of 11
 * priority levels, 176 µs a call with a bare `LIMIT ?` and 26–36 µs without; on an empty
 * table 79 against 2.4 µs, preparing it alone taking 99; after `ANALYZE` on 20,000 rows the
 * fenced write 49 against 12 µs and a partition's claim 207 against 26.
 */
export function unprobed(sql: string): string {
  return sql.replace(PARTS, (part) => (part === '?' ? '+?' : part));
}
