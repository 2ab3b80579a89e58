import {
  compareRunnable,
  type FateId,
  type FatesStore,
  hashPartitionOf,
  hashPartitionScanner,
  type IdRange,
  MAX_PRIORITY,
  MIN_PRIORITY,
  partitionRange,
  type Reservation,
  Status,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { slots, sorted } from './claims.js';
import { rejection, step, useFixture, withBackend } from './context.js';

interface Seeded {
  readonly id: FateId;
  readonly priority: number;
}

/** Seeds `n` transactions spread over every priority (and the default, absent = 0). */
async function seedLevels(store: FatesStore, n: number): Promise<Seeded[]> {
  const levels = MAX_PRIORITY - MIN_PRIORITY + 2; // every level, and one more for "absent"
  const results = await store.seedMany(
    Array.from({ length: n }, (_, i) => {
      const level = (i * 7) % levels;
      const priority = level === levels - 1 ? undefined : MIN_PRIORITY + level;
      return { step: step('s', i), opName: 'op', ...(priority !== undefined ? { priority } : {}) };
    }),
  );
  return results.map((r, i) => {
    const level = (i * 7) % levels;
    return { id: r.id, priority: level === levels - 1 ? 0 : MIN_PRIORITY + level };
  });
}

/** The runnable order: higher priority first, ascending ids within a priority. */
const inOrder = (items: readonly Seeded[]) => [...items].sort(compareRunnable).map((s) => s.id);

/**
 * Reads `range` page by page, passing each page's `last` and `lastPriority` on; checks the
 * priorities beside the ids and that no page repeats an id.
 */
async function readPages(
  store: FatesStore,
  range: IdRange | undefined,
  limit: number,
  priorityOf: ReadonlyMap<string, number>,
): Promise<FateId[]> {
  const seen: FateId[] = [];
  let after: { after: string; afterPriority: number } | undefined;
  for (let pages = 0; pages <= priorityOf.size + 1; pages++) {
    const page = await store.scanRunnable(range, { limit, ...after });
    expect(page.ids.length).toBeLessThanOrEqual(limit);
    expect(page.priorities).toEqual(page.ids.map((id) => priorityOf.get(id)));
    seen.push(...page.ids);
    if (page.last === undefined) return seen;
    expect(page.lastPriority).toBeTypeOf('number');
    after = { after: page.last, afterPriority: page.lastPriority as number };
  }
  throw new Error(`more pages than ids: ${seen.length} ids so far`);
}

/** Issue 25: `seed(…, { priority })`; scans and claims take higher priorities first. */
export function priorityTests(target: ConformanceTarget): void {
  describe('priorities', () => {
    const ctx = useFixture(target);
    const ordered = (t: { skip: () => void }) => {
      if (ctx.store.capabilities.priorities) return true;
      t.skip(); // the backend declares it keeps no priorities: every record runs as 0
      return false;
    };

    it('refuses a priority out of range or not an integer with FATE_INVALID_ARGUMENT, storing nothing', async () => {
      for (const priority of [MAX_PRIORITY + 1, MIN_PRIORITY - 1, 1.5, Number.NaN, '3', null]) {
        const error = await rejection(
          ctx.store.seed({ step: step(), opName: 'op', priority: priority as number }),
        );
        expect(error.code, String(priority)).toBe('FATE_INVALID_ARGUMENT');
      }
      const many = ctx.store.seedMany([
        { step: step(), opName: 'op', priority: 2 },
        { step: step(), opName: 'op', priority: 99 },
      ]);
      expect((await rejection(many)).code).toBe('FATE_INVALID_ARGUMENT');
      const bad = ctx.store.scanRunnable(undefined, { afterPriority: 1 });
      expect((await rejection(bad)).code).toBe('FATE_INVALID_ARGUMENT');
      expect(await ctx.store.list()).toEqual([]);
    });

    it('reads back each seed priority, 0 when none was given, through read, list and listPage', async (t) => {
      if (!ordered(t)) return;
      const seeded = await seedLevels(ctx.store, 13);
      const other = await ctx.client();
      const priorityOf = new Map(seeded.map((s) => [s.id as string, s.priority]));
      for (const s of seeded) expect((await other.read(s.id)).priority).toBe(s.priority);
      for (const row of await other.list()) expect(row.priority).toBe(priorityOf.get(row.id));
      const page = await other.listPage({ limit: 100 });
      expect(page.rows.length).toBe(seeded.length);
      for (const row of page.rows) expect(row.priority).toBe(priorityOf.get(row.id));
    });

    it('scans higher priorities first, ids ascending within one, page by page: every id once', async (t) => {
      if (!ordered(t)) return;
      const seeded = await seedLevels(ctx.store, 40);
      const priorityOf = new Map(seeded.map((s) => [s.id as string, s.priority]));
      const whole = await ctx.store.scanRunnable(undefined, { limit: 1_000 });
      expect(whole.ids).toEqual(inOrder(seeded));
      expect(whole.last).toBeUndefined();
      expect(await readPages(ctx.store, undefined, 3, priorityOf)).toEqual(inOrder(seeded));
      // within a range partition: only its ids, in the same order, at every page size
      for (const total of [2, 3]) {
        for (let partition = 0; partition < total; partition++) {
          const range = partitionRange({ partition, total });
          const mine = seeded.filter(
            (s) => s.id >= (range.start ?? '') && (range.end === undefined || s.id < range.end),
          );
          for (const limit of [1, 4, 100]) {
            const pages = await readPages(ctx.store, range, limit, priorityOf);
            expect(pages, `${partition}/${total} by ${limit}`).toEqual(inOrder(mine));
          }
        }
      }
    });

    it('scans a hash partition higher priorities first as well', async (t) => {
      if (!ordered(t)) return;
      const seeded = await seedLevels(ctx.store, 30);
      const p = { partition: 1, total: 3 };
      const scan = await hashPartitionScanner.scan(ctx.store, p, { limit: 1_000 });
      const mine = seeded.filter((s) => hashPartitionOf(s.id, 3) === 1);
      expect(scan.ids).toEqual(inOrder(mine));
    });

    it('claims the highest priorities first, lowest ids within one, and leaves the rest runnable in order', async (t) => {
      if (!ordered(t)) return;
      const seeded = await seedLevels(ctx.store, 24);
      const order = inOrder(seeded);
      const { claimed } = await ctx.store.claimRunnable(undefined, { limit: 5 });
      expect(claimed.map((h) => h.id)).toEqual(order.slice(0, 5));
      const range = partitionRange({ partition: 0, total: 2 });
      const inRange = seeded.filter((s) => s.id < (range.end as string));
      const next = await ctx.store.claimRunnable(range, { limit: 3 });
      const expected = inOrder(inRange).filter((id) => !order.slice(0, 5).includes(id));
      expect(next.claimed.map((h) => h.id)).toEqual(expected.slice(0, 3));
      const taken = new Set([...claimed, ...next.claimed].map((h) => h.id as string));
      expect((await ctx.store.scanRunnable()).ids).toEqual(order.filter((id) => !taken.has(id)));
    });

    it('finish and claim next takes the highest priorities first as well, each with its priority', async (t) => {
      if (!ordered(t)) return;
      const seeded = await seedLevels(ctx.store, 24);
      const order = inOrder(seeded);
      const h = await ctx.store.tryReserve(order[0] as FateId, { start: true });
      if (!h) throw new Error(`${order[0]} could not be reserved`);
      const next = ctx.store.claimNext(h, undefined, { limit: 4 });
      await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      const { claimed } = await next;
      expect(claimed.map((c) => c.id)).toEqual(order.slice(1, 5));
      expect((await ctx.store.scanRunnable()).ids).toEqual(order.slice(5));
    });

    it('finish and claim next answers each claimed record with its priority, and a repeat the same (backend)', async (t) => {
      if (!ordered(t)) return;
      await withBackend(ctx.fixture, async (backend) => {
        if (typeof backend.finishAndClaim !== 'function') return t.skip();
        const seeded = await seedLevels(ctx.store, 12);
        const order = inOrder(seeded);
        const priorityOf = new Map(seeded.map((s) => [s.id as string, s.priority]));
        const [ra] = slots('w1@prio', 1) as [Reservation];
        const top = order[0] as FateId;
        expect(await backend.tryReserve(top, ra, true)).toMatchObject({ status: Status.SUBMITTED });
        const rs = slots('w1@prio', 3);
        const done = { status: Status.SUCCESSFUL, release: { deferMs: 0 } } as const;
        const got = await backend.finishAndClaim(top, ra, done, undefined, rs);
        expect(got.written).toBe(true);
        expect(got.claimed.map((x) => x.id)).toEqual(order.slice(1, 4));
        const priorities = got.claimed.map((x) => x.record.priority ?? 0);
        expect(priorities).toEqual(order.slice(1, 4).map((id) => priorityOf.get(id)));
        const again = await backend.finishAndClaim(top, ra, done, undefined, rs);
        expect(again.written).toBe(false);
        expect(sorted(again.claimed.map((x) => x.id))).toEqual(sorted(order.slice(1, 4)));
        for (const x of again.claimed) {
          expect(x.record.priority ?? 0).toBe(priorityOf.get(x.id));
        }
      });
    });

    it('keeps the priority through a release, a deferral, a status write, a reopen and a keyed repeat', async (t) => {
      if (!ordered(t)) return;
      const key = { type: 'prio', key: 'k' };
      const { id } = await ctx.store.seed({ step: step(), opName: 'op', key, priority: 4 });
      const [low] = await seedLevels(ctx.store, 1); // priority -5
      const again = await ctx.store.seed({ step: step(), opName: 'op', key, priority: -3 });
      expect(again).toEqual({ id, created: false });
      const h = await ctx.store.reserve(id);
      await h.commit([{ op: 'setStatus', status: Status.IN_PROGRESS }, { op: 'unreserve' }]);
      const d = await ctx.store.reserve(id);
      await d.unreserve(400);
      expect((await ctx.store.read(id)).priority).toBe(4);
      expect((await ctx.store.scanRunnable()).ids).toEqual([low?.id]);
      const reopened = await ctx.client();
      expect((await reopened.read(id)).priority).toBe(4);
      const due = async () => (await reopened.scanRunnable()).ids.length === 2;
      for (let i = 0; i < 100 && !(await due()); i++) await new Promise((r) => setTimeout(r, 50));
      expect((await reopened.scanRunnable()).ids).toEqual([id, low?.id]);
      const claimed = await reopened.claimRunnable(undefined, { limit: 1 });
      expect(claimed.claimed.map((c) => c.id)).toEqual([id]);
    });
  });
}
