import Database from 'better-sqlite3';
import pg from 'pg';

// Builds a large store fast, straight in SQL (through the API a million finished
// transactions would take most of an hour here): the rows the engine would have left,
// with the same JSON, columns and index entries. 10% SUBMITTED with one runnable step;
// 90% SUCCESSFUL, finished evenly over the last `spreadMs` (stamp in info and index).

/** How the finished rows' stamps are spread back from now. */
export const SPREAD_MS = 6 * 24 * 3_600_000;
const BATCH = 200_000;

const STACK = `'[{"type":"bench-noop","state":{"left":1}}]'`;

/** SQLite: `n` rows into the file at `path` (already migrated by opening a store). */
export function buildSqlite(path: string, n: number, now: number): void {
  const db = new Database(path);
  try {
    const insert = db.prepare(`
      WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?),
      r(i, h, fin) AS (
        SELECT i, lower(hex(randomblob(16))),
               CASE WHEN i % 10 = 0 THEN NULL
                    ELSE cast(? - (i * 7919 % ?) * (? / ?) AS INTEGER) END FROM s)
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
      FROM r`);
    for (let from = 1; from <= n; from += BATCH) {
      const to = Math.min(n, from + BATCH - 1);
      const int = (x: number) => BigInt(Math.round(x));
      db.transaction(() =>
        insert.run(...[from, to, now, n, SPREAD_MS, n, now - SPREAD_MS, now - SPREAD_MS].map(int)),
      )();
    }
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
    for (let from = 1; from <= n; from += BATCH) {
      const to = Math.min(n, from + BATCH - 1);
      await client.query(
        `WITH r AS (
           SELECT i, md5(random()::text || i::text) AS h,
                  CASE WHEN i % 10 = 0 THEN NULL
                       ELSE $3::bigint - ((i::bigint * 7919) % $4::bigint) * ($5::bigint / $4::bigint) END AS fin
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
         FROM r`,
        [from, to, now, n, SPREAD_MS, now - SPREAD_MS],
      );
    }
    await client.query(`VACUUM ANALYZE ${schema}.transactions`);
  } finally {
    await client.end();
  }
}
