import { idAfter, MAX_PRIORITY, PRIORITY_LEVELS, type RunnablePosition } from '@fate/core';
import { type Compilable, type CompiledQuery, type Kysely, sql } from 'kysely';
import type { SqlDialect } from './sql-dialect.js';
import type { RangeArgs } from './sql-ranges.js';
import { type FateSchema, RUNNABLE_INDEX, runnableUnreserved } from './sql-schema.js';

// Priorities on SQL stores (issue 25): a `priority` column and the runnable index keyed by
// (priority, id), read one level at a time, highest first. Each level is an index range
// search of the partition's ids, so a page costs what it returns plus one seek per level,
// never the rows of other partitions (no skip scan is needed).

/**
 * Where a level walk starts: level `from` at id `lo`, then each lower level at the range's
 * `start` ('' when the range has none). One lower bound per level, so each is one seek.
 */
export interface LevelArgs extends RangeArgs {
  limit: number;
  from: number;
  lo: string;
}

/** Past every id: a level whose last id was the greatest starts here (reads nothing). */
const PAST_IDS = 'g';

/** The start of a walk of `range`: its top, or just after a page's last place. */
export function levelStart(
  range: RangeArgs,
  after?: RunnablePosition,
): { from: number; lo: string } {
  if (!after) return { from: MAX_PRIORITY, lo: range.start };
  const next = idAfter(after.id) ?? PAST_IDS;
  // biome-ignore lint/complexity/useMathMinMax: ids are strings, compared as text
  return { from: after.priority, lo: next > range.start ? next : range.start };
}

type Column = 'id' | 'op' | 'status' | 'priority' | 'defer_until';

/**
 * One level's runnable rows of a range in id order, at most `limit`; nothing for a level
 * above `from`, and only ids from `lo` in level `from` (the range's start is in `lo` and
 * `start`, so the `start` shape adds no second bound). `due`: only rows due by the
 * store's clock (claims); otherwise deferred rows too, with the clock's verdict (scans).
 */
function levelRows(
  d: SqlDialect,
  level: number,
  shape: { start: boolean; end: boolean; due: boolean },
  p: LevelArgs,
  columns: readonly Column[],
) {
  const lit = sql.lit(level);
  let query = d.db
    .selectFrom('transactions')
    .select([...columns, sql<number | boolean>`defer_until <= ${d.clock()}`.as('due')])
    .where(runnableUnreserved)
    .where('priority', '=', lit)
    .where(sql<boolean>`${lit} <= ${p.from}`)
    .where('id', '>=', sql<string>`case when ${lit} < ${p.from} then ${p.start} else ${p.lo} end`);
  if (shape.end) query = query.where('id', '<', p.end);
  if (shape.due) query = query.where('defer_until', '<=', d.clock());
  return d.pin(query.orderBy('id').limit(p.limit), 'transactions', RUNNABLE_INDEX);
}

/**
 * Every level from the top down, as one statement: each level a subquery of its own (one
 * index seek), joined by UNION ALL under an outer LIMIT, which stops reading levels once
 * the page is full. Both databases return a UNION ALL's branches in order.
 */
export function levelWalk<R>(
  d: SqlDialect,
  shape: { start: boolean; end: boolean; due: boolean },
  p: LevelArgs,
  columns: readonly Column[],
): Compilable<R> {
  const branches = PRIORITY_LEVELS.map((level) => levelRows(d, level, shape, p, columns));
  return unionAll<R>(branches, p.limit);
}

/**
 * Compiled branches as `select * from (…) union all … limit ?`. PostgreSQL's numbered
 * placeholders are renumbered per branch; SQLite's `?` are positional already.
 */
function unionAll<R>(branches: readonly Compilable<unknown>[], limit: unknown): Compilable<R> {
  return {
    compile() {
      const parts = branches.map((b) => b.compile());
      const numbered = parts.some((c) => /\$\d/.test(c.sql));
      const parameters: unknown[] = [];
      const texts = parts.map((c, i) => {
        const offset = parameters.length;
        parameters.push(...c.parameters);
        const text = numbered
          ? c.sql.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + offset}`)
          : c.sql;
        return `select * from (${text}) as level_${i}`;
      });
      parameters.push(limit);
      const text = `${texts.join(' union all ')} limit ${numbered ? `$${parameters.length}` : '?'}`;
      return { ...(parts[0] as CompiledQuery<unknown>), sql: text, parameters } as CompiledQuery<R>;
    },
  };
}

/** The migration step: the column (0 for rows written before) and the runnable index by level. */
export function addPriority(db: Kysely<FateSchema>) {
  return [
    db.schema
      .alterTable('transactions')
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0)),
    db.schema.dropIndex(RUNNABLE_INDEX),
    createRunnableLevelIndex(db),
  ];
}

/**
 * The runnable index by (priority, id), covering what scans and claims read; a partition's
 * level is one range of it. It replaces the runnable index by id.
 */
export function createRunnableLevelIndex(db: Kysely<FateSchema>) {
  return db.schema
    .createIndex(RUNNABLE_INDEX)
    .on('transactions')
    .columns(['priority', 'id', 'defer_until', 'op', 'status', 'res_lock'])
    .where((eb) => runnableUnreserved(eb as never));
}
