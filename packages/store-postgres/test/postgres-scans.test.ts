import { type FateId, newFateId, Status } from '@fate/core';
import { fence, levelStart, writeArgs } from '@fate/sql-common';
import type { PostgresBackend } from '@fate/store-postgres';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { claimStatements } from '../src/postgres-claims.js';
import { usePostgres } from './postgres-harness.js';

const t = usePostgres();

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Subplan Name'?: string;
  'Shared Hit Blocks'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The plan PostgreSQL makes for `sql` with `values`, as a generic or a custom plan. */
async function plan(c: pg.Client, sql: string, values: unknown[], generic: boolean) {
  await c.query(`SET plan_cache_mode = ${generic ? 'force_generic_plan' : 'force_custom_plan'}`);
  await c.query(`PREPARE probe AS ${sql}`);
  try {
    const literal = (v: unknown) =>
      v === null ? 'NULL' : typeof v === 'number' ? String(v) : c.escapeLiteral(String(v));
    const args = values.length > 0 ? `(${values.map(literal).join(', ')})` : '';
    const { rows } = await c.query(`EXPLAIN (FORMAT JSON) EXECUTE probe${args}`);
    return nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]?.Plan as PlanNode);
  } finally {
    await c.query('DEALLOCATE probe');
  }
}

/**
 * 3,000 transactions as a store holds them after a while: 80% finished, 10% held by
 * twenty lock ids, 10% runnable. Returns the ids with their kind.
 */
async function load(
  backend: PostgresBackend,
): Promise<Array<[FateId, 'held' | 'done' | 'runnable']>> {
  const rows = Array.from({ length: 3_000 }, (_, i) => {
    const kind = i % 10 === 0 ? 'held' : i % 10 === 9 ? 'runnable' : 'done';
    return [newFateId(), kind] as [FateId, 'held' | 'done' | 'runnable'];
  });
  const record = (kind: string) =>
    ({
      status: kind === 'done' ? Status.SUCCESSFUL : Status.SUBMITTED,
      stack: '[]',
      info: '{}',
      op: 'op',
    }) as const;
  await backend.insertMany(rows.map(([id, kind]) => ({ id, record: record(kind) })));
  for (const [i, [id, kind]] of rows.entries()) {
    if (kind === 'held') await backend.tryReserve(id, { lockId: `w${i % 20}@x`, uuid: `u${i}` });
  }
  return rows;
}

describe('postgres backend: scans and reservation listings read only what they need', () => {
  it('plans range scans and listings on the partial indexes and single rows on the key, generic plans too', async () => {
    const backend = await t.backend();
    await load(backend);
    await t.sql((c) => c.query(`VACUUM ANALYZE ${t.schema}.transactions`));
    const s = backend.statements;
    const bounds = { start: '40000000', end: '80000000' };
    const reservation = { lockId: 'w1@x', uuid: 'u1' };
    const id = newFateId();
    const runnable = ['transactions_runnable'];
    const reserved = ['transactions_reserved'];
    // by lock alone: all of either index (the holders index is by uuid, then lock)
    const byLock = ['transactions_reserved', 'transactions_holders'];
    // A fenced single-row statement may find its row by the key, by the reserved index,
    // which holds (id, res_lock, res_uuid), or by the holders index (res_uuid, res_lock):
    // each reads one row.
    const oneRow = ['transactions_pkey', 'transactions_reserved', 'transactions_holders'];
    const cases: Array<[string, { sql: string }, unknown[], string[]]> = [
      ['reservedBy', s.reservedBy, s.reservedBy.values({ lockId: 'w1@x' }), byLock],
      ['read', s.read, s.read.values({ id }), ['transactions_pkey']],
      ['holder', s.holder, s.holder.values({ id }), ['transactions_pkey']],
      ['reserve', s.reserve, s.reserve.values(fence(id, reservation)), ['transactions_pkey']],
      ['remove', s.remove, s.remove.values(fence(id, reservation)), oneRow],
      ['clear', s.clearReservation, s.clearReservation.values(fence(id, reservation)), oneRow],
      [
        'write',
        s.write,
        s.write.values(writeArgs(id, reservation, { status: Status.IN_PROGRESS })),
        oneRow,
      ],
    ];
    for (const shape of ['all', 'from', 'to', 'between'] as const) {
      const [scan, held] = [s.scan[shape], s.reserved[shape]];
      cases.push([
        `scan.${shape}`,
        scan,
        scan.values({ ...bounds, ...levelStart(bounds), limit: 1000 }),
        runnable,
      ]);
      cases.push([`reserved.${shape}`, held, held.values(bounds), reserved]);
    }
    await t.sql(async (c) => {
      for (const generic of [false, true]) {
        for (const [name, statement, values, indexes] of cases) {
          const found = await plan(c, statement.sql, values, generic);
          const label = `${name} (${generic ? 'generic' : 'custom'} plan)`;
          expect(
            found.map((n) => n['Node Type']),
            label,
          ).not.toContain('Seq Scan');
          const used = found.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
          expect(used.length, label).toBeGreaterThan(0);
          for (const index of used) expect(indexes, label).toContain(index);
        }
      }
    });
  });

  it('reads for a partition only the runnable rows of its range', async () => {
    const backend = await t.backend();
    const rows = await load(backend);
    const runnable = rows.flatMap(([id, kind]) => (kind === 'runnable' ? [id] : [])).sort();
    const range = { start: '40000000', end: '80000000' };
    const inside = runnable.filter((id) => id >= range.start && id < range.end);
    const scan = await backend.scanRunnable(range, 10_000);
    expect(scan.itemsRead).toBe(inside.length);
    expect(scan.ids).toEqual(inside);
    expect(new Set(scan.ops)).toEqual(new Set(['op']));
  });

  it('a claim finds its own held rows by holder, however many reservations came and went since the last vacuum', async () => {
    // Every reservation leaves an entry in the reserved index that only a vacuum removes.
    // The claim's first question (rows already holding its uuids: a repeat after a lost
    // reply) read all of them through that index, ordered by id: 9.5 ms a claim after a
    // drain of 20,000. By holder it reads its own uuids' entries only.
    const backend = await t.backend();
    await t.sql((c) =>
      c.query(`ALTER TABLE ${t.schema}.transactions SET (autovacuum_enabled = false)`),
    );
    const engine = 'engine@1';
    const ids = Array.from({ length: 10_000 }, () => newFateId());
    const record = { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' } as const;
    await backend.insertMany(ids.map((id) => ({ id, record })));
    for (let i = 0; i < ids.length; i += 250) {
      const chunk = ids.slice(i, i + 250);
      await Promise.all(
        chunk.map(async (id) => {
          const reservation = { lockId: engine, uuid: `u-${id}` };
          await backend.tryReserve(id, reservation, true);
          await backend.write(id, reservation, {
            status: Status.SUCCESSFUL,
            release: { deferMs: 0 },
          });
        }),
      );
    }
    await backend.insertMany(ids.slice(0, 16).map(() => ({ id: newFateId(), record })));
    const claim = claimStatements(t.schema).all;
    const uuids = Array.from({ length: 16 }, (_, i) => `fresh-${i}`);
    const found = await t.sql(async (c) => {
      await c.query('BEGIN');
      try {
        const { rows } = await c.query(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claim.sql}`,
          claim.values({ lockId: engine, uuids, limit: 16, start: '', end: '' }),
        );
        return nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]?.Plan as PlanNode);
      } finally {
        await c.query('ROLLBACK');
      }
    });
    const held = found.find((n) => n['Subplan Name'] === 'CTE held');
    expect(held, 'the claim asks for its held rows first').toBeDefined();
    const reads = nodes(held as PlanNode).filter((n) => n['Index Name']);
    expect(reads.map((n) => n['Index Name'])).toEqual(['transactions_holders']);
    // a descent of the index per uuid (32 here; by the reserved index, all 10,000 entries: 441)
    expect(held?.['Shared Hit Blocks'], 'pages read for the held rows').toBeLessThanOrEqual(4 * 16);
  });
});
