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

  constructor(database: Database, build: (p: A) => Compilable<R>) {
    this.#query = new NamedQuery(build);
    this.#statement = database.prepare<unknown[], R>(this.#query.sql);
  }

  /** The SQL kysely compiled (tests read it for `EXPLAIN QUERY PLAN`). */
  get sql(): string {
    return this.#query.sql;
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
