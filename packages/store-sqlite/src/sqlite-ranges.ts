import type { IdRange } from '@fate/core';
import type { Compilable } from 'kysely';
import type { PreparedQuery } from './sqlite-prepared.js';

/** The bounds of an id range as statement arguments ('' where a bound is absent). */
export interface RangeArgs {
  start: string;
  end: string;
}

/** One statement per shape of range, so each seeks with exactly the bounds it has. */
export interface RangeStatements<S> {
  readonly all: S;
  readonly from: S;
  readonly to: S;
  readonly between: S;
}

/**
 * Builds the four shapes of a range query: `build(p, start, end)` adds `id >= start` and
 * `id < end` when told to. A bound bound as '' would compare, not vanish, so absent bounds
 * need statements of their own.
 */
export function rangeStatements<A extends RangeArgs, R>(
  prepare: <B extends object, T>(build: (p: B) => Compilable<T>) => PreparedQuery<B, T>,
  build: (p: A, start: boolean, end: boolean) => Compilable<R>,
): RangeStatements<PreparedQuery<A, R>> {
  return {
    all: prepare((p: A) => build(p, false, false)),
    from: prepare((p: A) => build(p, true, false)),
    to: prepare((p: A) => build(p, false, true)),
    between: prepare((p: A) => build(p, true, true)),
  };
}

/** The statement for `range`'s shape, and its bounds as arguments. */
export function forRange<S>(
  statements: RangeStatements<S>,
  range: IdRange | undefined,
): [S, RangeArgs] {
  const start = range?.start;
  const end = range?.end;
  const statement =
    start === undefined
      ? end === undefined
        ? statements.all
        : statements.to
      : end === undefined
        ? statements.from
        : statements.between;
  return [statement, { start: start ?? '', end: end ?? '' }];
}

/**
 * Pins a query to `index` with SQLite's INDEXED BY, which kysely does not build, so it is
 * added to the compiled SQL. Statistics (ANALYZE) could otherwise move a bounded query to
 * the primary key, which reads every row of the range instead of the indexed ones; and
 * should the index ever stop matching the query, preparing fails at open instead of the
 * query silently reading the whole table.
 */
export function indexedBy<R>(query: Compilable<R>, table: string, index: string): Compilable<R> {
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
