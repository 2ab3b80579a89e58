import { randomBytes } from 'node:crypto';
import type { StoreFixture } from '@fate/conformance';
import { createStoreBackend } from '@fate/store-postgres';
import { dropPostgresSchema } from '@fate/test-services';
import pg from 'pg';

/** Garbage per column: a status no one knows, JSON that does not parse. */
const GARBAGE = { status: 'BOGUS', stack: '{not json', info: '{not json' } as const;

export const newSchema = (): string => `t_${randomBytes(6).toString('hex')}`;

/** `serverUrl` (a database) with fate's parameters added. */
export function storeUrl(serverUrl: string, params: Record<string, string>): string {
  const url = new URL(serverUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

/** A session that runs one statement at a time (a client, a pool). */
export interface AdminSession {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/** Runs `fn` on a connection of its own to `serverUrl`. */
export async function withClient<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: serverUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Connections per client in tests: test files run in parallel and each opens many clients,
 * so the default 10 could reach a server's `max_connections` (100 on Debian's default).
 */
export const TEST_POOL_SIZE = '4';

/**
 * A fresh schema in the database at `serverUrl`; every `backend()` is a new client. With
 * `options`, the schema is the one given and the store connects to `storeServer` (the
 * same database as another role, say), while set-up and cleanup use `serverUrl`.
 */
export function postgresFixture(
  serverUrl: string,
  options: {
    readonly schema?: string;
    readonly storeServer?: string;
    /** A session of its own for corrupting and reading behind the store's back. */
    readonly admin?: AdminSession;
  } = {},
): StoreFixture & { readonly url: string; readonly schema: string } {
  const schema = options.schema ?? newSchema();
  const url = storeUrl(options.storeServer ?? serverUrl, { schema, poolSize: TEST_POOL_SIZE });
  const sql: AdminSession['query'] = (text, values) =>
    options.admin
      ? options.admin.query(text, values)
      : withClient(serverUrl, (c) => c.query(text, values));
  return {
    url,
    schema,
    backend: () => createStoreBackend(url),
    async corrupt(id, field) {
      const column = ({ status: 'status', stack: 'stack', info: 'info' } as const)[field];
      await sql(`UPDATE ${schema}.transactions SET ${column} = $1 WHERE id = $2`, [
        GARBAGE[field],
        id,
      ]);
    },
    async leftovers() {
      // data tables only: fate_meta (the schema version) is the skeleton
      const { rows } = await sql(
        `SELECT 'transaction ' || id AS row FROM ${schema}.transactions UNION ALL SELECT 'liveness ' || lock_id FROM ${schema}.liveness`,
      );
      return rows.map((r) => String(r.row));
    },
    async destroy() {
      await dropPostgresSchema(serverUrl, schema);
    },
  };
}
