import type { StoreFixture } from '@fate/conformance';
import pg from 'pg';
import { postgresFixture } from './postgres-fixture.js';

/**
 * Schemas one conformance file hands from case to case, emptied instead of dropped and
 * made again. A PostgreSQL session here costs ~25 ms of server CPU to start and a fresh
 * schema's migration ~60 ms more: with 3–5 sessions a case, that overhead was most of the
 * CPU the PostgreSQL suites took (71 s for the 185 store cases, Redis 12 s), and CPU is
 * what CI runs short of. A schema is handed on only when nothing can still write to it —
 * no store session is left in the file's database (the file owns it; its cases run one
 * at a time, and every client, engine and child process of a case is closed before
 * `destroy`) — and emptying it left it empty. The suites change data, never the schema,
 * so an emptied schema is a fresh one. Other PostgreSQL tests, which may alter a schema,
 * keep fresh schemas.
 */
export class SchemaReuse<S extends { readonly schema: string }> {
  readonly #free: S[] = [];
  readonly #admin: pg.Pool;

  /** `serverUrl`: a superuser's URL to the database, for emptying, checks and corrupting. */
  constructor(serverUrl: string) {
    // one session for the whole file, closed when idle (a file ends; nothing to end by hand)
    this.#admin = new pg.Pool({
      connectionString: serverUrl,
      max: 1,
      idleTimeoutMillis: 2_000,
      allowExitOnIdle: true,
    });
    this.#admin.on('error', () => undefined);
  }

  /** A schema a finished case left, emptied; undefined when there is none. */
  take(): S | undefined {
    return this.#free.pop();
  }

  /** Empties `entry`'s schema and keeps it for the next case when it stays empty. */
  async give(entry: S): Promise<void> {
    const s = entry.schema;
    try {
      if (!(await this.#noStoreSessions())) return;
      // the delete trigger appends to fate_counts: empty it after the transactions
      await this.#admin.query(
        `DELETE FROM ${s}.transactions; DELETE FROM ${s}.liveness; DELETE FROM ${s}.fate_counts`,
      );
      const { rows } = await this.#admin.query<{ left: string }>(
        `SELECT (SELECT count(*) FROM ${s}.transactions) + (SELECT count(*) FROM ${s}.liveness) + (SELECT count(*) FROM ${s}.fate_counts) AS left`,
      );
      if (Number(rows[0]?.left) === 0) this.#free.push(entry);
    } catch {
      // no store was ever opened in it (a case that failed first): left to the database's drop
    }
  }

  /**
   * True once no store session (`application_name` fate) is connected to the database;
   * false if one stays 500 ms (a closed pool's sessions end just after its `end()`).
   */
  async #noStoreSessions(): Promise<boolean> {
    for (let i = 0; i < 25; i++) {
      const { rows } = await this.#admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'fate' AND pid <> pg_backend_pid()`,
      );
      if (rows[0]?.n === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  }

  /** Runs `sql` on the file's admin session. */
  query<R extends pg.QueryResultRow>(sql: string, values?: unknown[]) {
    return this.#admin.query<R>(sql, values);
  }
}

/**
 * A conformance target's factory on `server()`'s database whose fixtures reuse schemas:
 * `make` gives a fresh entry (a schema, and whatever else it needs), `store` the URL the
 * store connects to for it (the database itself, or as the schema's owner).
 */
export function reusingFactory<S extends { readonly schema: string }>(
  server: () => Promise<{ readonly url: string }>,
  make: (serverUrl: string) => Promise<S>,
  store: (serverUrl: string, entry: S) => string = (serverUrl) => serverUrl,
): () => Promise<StoreFixture> {
  let reuse: SchemaReuse<S> | undefined;
  return async () => {
    const serverUrl = (await server()).url;
    reuse ??= new SchemaReuse<S>(serverUrl);
    const entry = reuse.take() ?? (await make(serverUrl));
    const admin = reuse;
    const fixture = postgresFixture(serverUrl, {
      schema: entry.schema,
      storeServer: store(serverUrl, entry),
      admin,
    });
    return { ...fixture, destroy: () => admin.give(entry) };
  };
}
