import { fateQueries, mapShapes, type RangeShapes, type RecordColumns } from '@fate/sql-common';
import type { Database } from 'better-sqlite3';
import type { Compilable } from 'kysely';
import { sqliteDialect } from './sqlite-dialect.js';
import { PreparedQuery } from './sqlite-prepared.js';

const queries = fateQueries(sqliteDialect);

/** The hot statements: the shared queries, compiled and prepared once per connection. */
export function prepareStatements(database: Database) {
  const q = <A extends object, R>(build: (p: A) => Compilable<R>) =>
    new PreparedQuery<A, R>(database, build);
  const shapes = <A extends object, R>(s: RangeShapes<(p: A) => Compilable<R>>) =>
    mapShapes(s, (build) => q(build));
  return {
    now: q(queries.now),
    insert: q(queries.insert),
    read: q(queries.read),
    reserve: q(queries.reserve),
    reserveToRun: q(queries.reserveToRun),
    holder: q(queries.holder),
    write: q(queries.write),
    remove: q(queries.remove),
    clearReservation: q(queries.clearReservation),
    scan: shapes(queries.scan),
    reserved: shapes(queries.reserved),
    reservedBy: q(queries.reservedBy),
    heartbeat: q(queries.heartbeat),
    liveness: q(queries.liveness),
    forget: q(queries.forget),
  };
}

/** Every record, or those in `statuses` (prepared per call: admin listings are not hot). */
export function listRows(database: Database, statuses?: readonly string[]) {
  const compiled = queries.list(statuses).compile();
  const statement = database.prepare<unknown[], RecordColumns & { id: string }>(compiled.sql);
  return statement.all(...compiled.parameters);
}

export type Statements = ReturnType<typeof prepareStatements>;
