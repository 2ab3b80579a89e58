import Database from 'better-sqlite3';
import pg from 'pg';

// Builds a large store fast, straight in SQL (through the API a million finished
// transactions would take most of an hour here): the rows the engine would have left,
// with the same JSON, columns and index entries. 10% SUBMITTED with one runnable step;
// 90% SUCCESSFUL, finished evenly over the last `spreadMs` (stamp in info and index).
// As a bulk load does, the secondary indexes are dropped first and created again after
// from the very text the store's migrations left (read back from the catalogue), so the
// schema afterwards is the store's own; the counts triggers stay and count every row.

/**
 * How the finished rows' stamps are spread back from now: row i at now − (i·7919 mod n)·SPREAD/n,
 * multiplied before dividing (SPREAD/n first truncated: at 10,000,000 the oldest stamp was
 * 1.6% too young, and the 1%-due sweep found nothing due).
 */
export const SPREAD_MS = 6 * 24 * 3_600_000;
const BATCH = 200_000;

/** The stack of a runnable row: one no-op step. */
export const STACK_JSON = '[{"type":"bench-noop","state":{"left":1}}]';
const STACK = `'${STACK_JSON}'`;

/** SQLite: `n` rows into the file at `path` (already migrated by opening a store). */
export function buildSqlite(path: string, n: number, now: number): void {
  const db = new Database(path);
  try {
    // this connection only: a large page cache, and no fsync (a crash loses the build)
    db.pragma('cache_size = -1000000');
    db.pragma('synchronous = OFF');
    const indexes = db
      .prepare<[], { name: string; sql: string }>(
        `SELECT name, sql FROM sqlite_master
         WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL`,
      )
      .all();
    for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
    const insert = db.prepare(`
      WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?),
      r(i, h, fin) AS (
        SELECT i, lower(hex(randomblob(16))),
               CASE WHEN i % 10 = 0 THEN NULL
                    ELSE cast(? - (i * 7919 % ?) * ? / ? AS INTEGER) END FROM s)
      INSERT INTO transactions
        (id, status, stack, info, op, res_lock, res_uuid, defer_until, finished_at, due_at)
      SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' ||
               substr(h, 18, 3) || '-' || substr(h, 21, 12),
             CASE WHEN fin IS NULL THEN 'SUBMITTED' ELSE 'SUCCESSFUL' END,
             CASE WHEN fin IS NULL THEN ${STACK} ELSE '[]' END,
             CASE WHEN fin IS NULL
               THEN json_object('opName', 'op' || (i % 5), 'created', ?)
               ELSE json_object('opName', 'op' || (i % 5), 'created', ?, 'ageOff', fin,
                                'returnValue', json_object('i', i)) END,
             'op' || (i % 5), NULL, NULL, 0, fin, NULL
      FROM r ORDER BY 1`);
    for (let from = 1; from <= n; from += BATCH) {
      const to = Math.min(n, from + BATCH - 1);
      const int = (x: number) => BigInt(Math.round(x));
      db.transaction(() =>
        insert.run(...[from, to, now, n, SPREAD_MS, n, now - SPREAD_MS, now - SPREAD_MS].map(int)),
      )();
    }
    for (const index of indexes) db.exec(index.sql);
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
}

/** PostgreSQL: `n` rows into `schema` (already migrated by opening a store). */
export async function buildPostgres(
  serverUrl: string,
  schema: string,
  n: number,
  now: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET maintenance_work_mem = '1GB'`);
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
       WHERE schemaname = $1 AND tablename = 'transactions' AND indexname <> 'transactions_pkey'`,
      [schema],
    );
    for (const { name } of indexes) await client.query(`DROP INDEX ${schema}.${name}`);
    for (let from = 1; from <= n; from += BATCH) {
      const to = Math.min(n, from + BATCH - 1);
      await client.query(
        `WITH r AS (
           SELECT i, md5(random()::text || i::text) AS h,
                  CASE WHEN i % 10 = 0 THEN NULL
                       ELSE $3::bigint - ((i::bigint * 7919) % $4::bigint) * $5::bigint / $4::bigint END AS fin
           FROM generate_series($1::bigint, $2::bigint) AS i)
         INSERT INTO ${schema}.transactions
           (id, status, stack, info, op, res_lock, res_uuid, defer_until, finished_at, due_at)
         SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' ||
                  substr(h, 18, 3) || '-' || substr(h, 21, 12),
                CASE WHEN fin IS NULL THEN 'SUBMITTED' ELSE 'SUCCESSFUL' END,
                CASE WHEN fin IS NULL THEN ${STACK} ELSE '[]' END,
                CASE WHEN fin IS NULL
                  THEN json_build_object('opName', 'op' || (i % 5), 'created', $6::bigint)::text
                  ELSE json_build_object('opName', 'op' || (i % 5), 'created', $6::bigint,
                         'ageOff', fin, 'returnValue', json_build_object('i', i))::text END,
                'op' || (i % 5), NULL, NULL, 0, fin, NULL
         FROM r ORDER BY 1`,
        [from, to, now, n, SPREAD_MS, now - SPREAD_MS],
      );
    }
    for (const { def } of indexes) await client.query(def);
    await client.query(`VACUUM ANALYZE ${schema}.transactions`);
  } finally {
    await client.end();
  }
}
