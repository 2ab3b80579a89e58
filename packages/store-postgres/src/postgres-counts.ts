import type { BackendCount } from '@fate/core';
import type { Pool } from 'pg';

// Counts by status and op without a hot row: every statement that adds, removes or
// re-labels transactions appends its changes (status, op, ±n) to `fate_counts`, from
// triggers in the writing statement's own transaction, so the sum is exact whatever
// crashes mid-write. Appending takes no row lock: concurrent writers never wait on each
// other for the counts, and cannot deadlock on them. A fold replaces the changes it sees
// by their sums (one statement: rows other transactions append meanwhile are not in its
// snapshot and stay), so a read sums the groups plus what was appended since the last
// fold: its cost grows with the writes since then, not with the store.

/** Change rows a read may find before it folds them. */
export const FOLD_AFTER = 1_000;

/** DDL of the counts (migration 3): the table, its trigger functions and triggers. */
export function countsDdl(schema: string): string[] {
  const counts = `${schema}.fate_counts`;
  const tx = `${schema}.transactions`;
  return [
    `CREATE TABLE ${counts} (status text NOT NULL, op text NOT NULL, n bigint NOT NULL)`,
    // Inserts and deletes are counted per statement (a seedMany or a batch of age-off
    // deletes appends one row per status and op, not one per transaction).
    `CREATE FUNCTION ${schema}.fate_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP = 'INSERT' THEN
         INSERT INTO ${counts} (status, op, n) SELECT status, op, count(*) FROM fate_added GROUP BY status, op;
       ELSE
         INSERT INTO ${counts} (status, op, n) SELECT status, op, -count(*) FROM fate_removed GROUP BY status, op;
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE FUNCTION ${schema}.fate_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO ${counts} (status, op, n) VALUES (OLD.status, OLD.op, -1), (NEW.status, NEW.op, 1);
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER fate_count_insert AFTER INSERT ON ${tx} REFERENCING NEW TABLE AS fate_added
     FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.fate_count_rows()`,
    `CREATE TRIGGER fate_count_delete AFTER DELETE ON ${tx} REFERENCING OLD TABLE AS fate_removed
     FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.fate_count_rows()`,
    // Only a change of status or op moves a count (most writes change the stack alone).
    `CREATE TRIGGER fate_count_update AFTER UPDATE OF status, op ON ${tx} FOR EACH ROW
     WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.op IS DISTINCT FROM NEW.op)
     EXECUTE FUNCTION ${schema}.fate_count_change()`,
    `INSERT INTO ${counts} (status, op, n) SELECT status, op, count(*) FROM ${tx} GROUP BY status, op`,
  ];
}

/** Reads and folds one schema's counts. */
export function postgresCounts(schema: string) {
  const counts = `${schema}.fate_counts`;
  const read = `SELECT status, op, sum(n)::bigint AS count, count(*)::int AS changes FROM ${counts} GROUP BY status, op`;
  const fold = `WITH gone AS (DELETE FROM ${counts} RETURNING status, op, n)
    INSERT INTO ${counts} (status, op, n)
    SELECT status, op, sum(n) FROM gone GROUP BY status, op HAVING sum(n) <> 0`;
  return {
    /** Replaces the change rows it sees by their sums, per status and op. */
    async fold(pool: Pool): Promise<void> {
      await pool.query(fold);
    },
    /** The counts; folds afterwards when the read found more than `FOLD_AFTER` rows. */
    async read(pool: Pool): Promise<BackendCount[]> {
      const { rows } = await pool.query<{
        status: string;
        op: string;
        count: string;
        changes: number;
      }>(read);
      if (rows.reduce((sum, r) => sum + r.changes, 0) > FOLD_AFTER) await pool.query(fold);
      return rows
        .map((r) => ({ status: r.status, op: r.op, count: Number(r.count) }))
        .filter((r) => r.count > 0);
    },
  };
}
