import { newFateId, RUNNABLE_STATUSES, Status } from '@fate/core';
import { SCHEMA_VERSION } from '@fate/store-postgres';
import { describe, expect, it } from 'vitest';
import { step, usePostgres } from './postgres-harness.js';

const t = usePostgres();

describe('postgres backend: priorities (issue 25)', () => {
  it('migrates a version-3 schema: its records run as 0, new ones above them first', async () => {
    await (await t.store()).close();
    const old = [newFateId(), newFateId()].sort();
    await t.sql(async (c) => {
      // Back to version 3, as @fate/store-postgres wrote it before priorities.
      const statuses = [...RUNNABLE_STATUSES].map((s) => `'${s}'`).join(', ');
      await c.query(`DROP INDEX ${t.schema}.transactions_runnable`);
      await c.query(`ALTER TABLE ${t.schema}.transactions DROP COLUMN priority`);
      await c.query(
        `CREATE INDEX transactions_runnable ON ${t.schema}.transactions (id, defer_until, op, status, res_lock) WHERE res_lock IS NULL AND status IN (${statuses})`,
      );
      await c.query(`UPDATE ${t.schema}.fate_meta SET value = '3' WHERE key = 'schema_version'`);
      for (const id of old) {
        await c.query(
          `INSERT INTO ${t.schema}.transactions (id, status, stack, info, op) VALUES ($1, $2, '[]', '{"opName":"old"}', 'old')`,
          [id, Status.SUBMITTED],
        );
      }
    });
    const store = await t.store();
    const meta = await t.sql((c) =>
      c.query(`SELECT value FROM ${t.schema}.fate_meta WHERE key = 'schema_version'`),
    );
    expect(meta.rows).toEqual([{ value: String(SCHEMA_VERSION) }]);
    for (const id of old) expect((await store.read(id)).priority).toBe(0);
    const { id: urgent } = await store.seed({ step, opName: 'new', priority: 3 });
    const [later] = await store.seedMany([{ step, opName: 'new', priority: -2 }]);
    expect((await store.scanRunnable()).ids).toEqual([urgent, ...old, later?.id]);
    const { claimed } = await store.claimRunnable(undefined, { limit: 2 });
    expect(claimed.map((h) => h.id)).toEqual([urgent, old[0]]);
  });
});
