import { createHash } from 'node:crypto';
import { fateQueries, mapShapes, NamedQuery, type RangeShapes } from '@fate/sql-common';
import { type Compilable, sql } from 'kysely';
import type { Pool, QueryResultRow } from 'pg';
import { postgresDialect } from './postgres-dialect.js';

/** One name per text (the schema is part of it): a name must never mean two texts. */
export function statementName(text: string): string {
  return `fate_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
}

/**
 * A shared query compiled once and run as a PostgreSQL named statement: each pooled
 * connection parses and plans it once, then a call sends only its name and values.
 */
export class PgStatement<A extends object, R extends QueryResultRow> {
  readonly #query: NamedQuery<A, R>;
  readonly #name: string;

  constructor(build: (p: A) => Compilable<R>) {
    this.#query = new NamedQuery(build);
    this.#name = statementName(this.#query.sql);
  }

  /** The SQL kysely compiled (tests read it for `EXPLAIN`). */
  get sql(): string {
    return this.#query.sql;
  }

  /** The values of `args`, in the statement's order (tests `EXPLAIN` with them). */
  values(args: A): unknown[] {
    return this.#query.bind(args);
  }

  async rows(pool: Pool, args: A): Promise<R[]> {
    const result = await pool.query<R>({
      name: this.#name,
      text: this.sql,
      values: this.values(args),
    });
    return result.rows;
  }

  /** Rows the statement changed. */
  async changed(pool: Pool, args: A): Promise<number> {
    const result = await pool.query({
      name: this.#name,
      text: this.sql,
      values: this.values(args),
    });
    return result.rowCount ?? 0;
  }
}

/** Many records' fields as parallel arrays, for one `unnest` insert. */
export interface InsertManyArgs {
  ids: string[];
  statuses: string[];
  stacks: string[];
  infos: string[];
  ops: string[];
  /** Each record's deferral, whole ms from the insert by the server's clock (0: none). */
  defers: number[];
  priorities: number[];
}

/** The statements of one schema's store, prepared on each connection at first use. */
export function postgresStatements(schema: string) {
  const dialect = postgresDialect(schema);
  const { db } = dialect;
  const queries = fateQueries(dialect);
  const s = <A extends object, R extends QueryResultRow>(build: (p: A) => Compilable<R>) =>
    new PgStatement<A, R>(build);
  const shapes = <A extends object, R extends QueryResultRow>(
    q: RangeShapes<(p: A) => Compilable<R>>,
  ) => mapShapes(q, (build) => s(build));
  return {
    now: s(queries.now),
    insert: s(queries.insert),
    /** Many records in one statement: their fields as parallel arrays, `unnest`ed. */
    insertMany: s((p: InsertManyArgs) =>
      db
        .insertInto('transactions')
        .columns(['id', 'status', 'stack', 'info', 'op', 'defer_until', 'priority'])
        .expression(
          sql`select u.id, u.status, u.stack, u.info, u.op, case when u.defer > 0 then ${dialect.clock()} + u.defer else 0 end, u.priority from unnest(${p.ids}::text[], ${p.statuses}::text[], ${p.stacks}::text[], ${p.infos}::text[], ${p.ops}::text[], ${p.defers}::bigint[], ${p.priorities}::integer[]) as u(id, status, stack, info, op, defer, priority)`,
        )
        .onConflict((oc) => oc.doNothing())
        .returning('id'),
    ),
    notify: s((p: { channel: string }) =>
      db.selectNoFrom(sql<string>`pg_notify(${p.channel}, '')::text`.as('notified')),
    ),
    read: s(queries.read),
    reserve: s(queries.reserve),
    reserveToRun: s(queries.reserveToRun),
    holder: s(queries.holder),
    write: s(queries.write),
    remove: s(queries.remove),
    clearReservation: s(queries.clearReservation),
    scan: shapes(queries.scan),
    reserved: shapes(queries.reserved),
    reservedBy: s(queries.reservedBy),
    /** Also answers the server's clock, to keep this client's estimate of it fresh. */
    heartbeat: s((p: Parameters<typeof queries.heartbeat>[0]) =>
      queries.heartbeat(p).returning(dialect.clock().as('now')),
    ),
    liveness: s(queries.liveness),
    forget: s(queries.forget),
    list: (statuses?: readonly string[]) => queries.list(statuses).compile(),
  };
}

export type PostgresStatements = ReturnType<typeof postgresStatements>;
