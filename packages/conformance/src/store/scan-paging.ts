import { type FateId, type FatesStore, type IdRange, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';

const SECOND = 1_000;

/**
 * Reads `range` page by page (`after` = the previous page's `last`) and checks each page:
 * ids ascending and after the previous `last`, at most `limit`, ops beside their ids. The
 * store holds only runnable transactions here, so a page with fewer than `limit` ids has
 * read to the end of the range and must not have a `last`.
 */
async function readAll(
  store: FatesStore,
  range: IdRange | undefined,
  limit: number,
  opOf: ReadonlyMap<string, string>,
): Promise<FateId[]> {
  const seen: FateId[] = [];
  let after: FateId | undefined;
  for (let pages = 0; pages <= opOf.size; pages++) {
    const page = await store.scanRunnable(range, { limit, ...(after ? { after } : {}) });
    expect(page.ids.length).toBeLessThanOrEqual(limit);
    expect(page.ids).toEqual([...page.ids].sort());
    if (after !== undefined) for (const id of page.ids) expect(id > after).toBe(true);
    expect(page.ops).toEqual(page.ids.map((id) => opOf.get(id)));
    seen.push(...page.ids);
    if (page.last === undefined) return seen;
    expect(page.ids.length, 'a page with a last ended at the limit').toBe(limit);
    expect(page.last >= (page.ids.at(-1) as string)).toBe(true);
    after = page.last as FateId;
  }
  throw new Error(`more pages than ids: ${seen.length} ids so far`);
}

export function scanPagingTests(target: ConformanceTarget): void {
  describe('runnable scans, page by page', () => {
    const ctx = useFixture(target);

    it('pages through the store and through a range: every id once, in order, each with its op, no last at the end', async () => {
      const opOf = new Map<string, string>();
      for (let i = 0; i < 23; i++) {
        const opName = `op-${i}`;
        const { id } = await ctx.store.seed({ step: step(), opName });
        opOf.set(id, opName);
      }
      const ids = [...opOf.keys()].sort() as FateId[];
      expect(await readAll(ctx.store, undefined, 5, opOf)).toEqual(ids);
      const range = { start: ids[3], end: ids[19] };
      expect(await readAll(ctx.store, range, 4, opOf)).toEqual(ids.slice(3, 19));
      const whole = await ctx.store.scanRunnable(undefined, { limit: 100 });
      expect(whole.ids).toEqual(ids);
      expect(whole.last).toBeUndefined();
    });

    it('says the earliest deferral among runnable, unreserved transactions, and only theirs', async () => {
      const seed = async () => (await ctx.store.seed({ step: step(), opName: 'op' })).id;
      const defer = async (id: FateId, ms: number, status?: Status) => {
        await (await ctx.store.reserve(id)).commit([
          ...(status ? [{ op: 'setStatus' as const, status }] : []),
          { op: 'unreserve', deferMs: ms },
        ]);
      };
      // three runnable ones; the earliest is neither the first nor the last in id order
      const [low, middle, high] = (await Promise.all([seed(), seed(), seed()])).sort();
      await defer(middle as FateId, 30 * SECOND);
      await defer(low as FateId, 40 * SECOND);
      await defer(high as FateId, 50 * SECOND);
      // earlier deferrals that do not count: a finished one, a NEW one, a reserved one
      await defer(await seed(), 10 * SECOND, Status.SUCCESSFUL);
      await defer(await seed(), 11 * SECOND, Status.NEW);
      const reserved = await seed();
      await defer(reserved, 12 * SECOND);
      await ctx.store.reserve(reserved);
      const due = await seed();
      const scan = await ctx.store.scanRunnable();
      expect(scan.ids).toEqual([due]);
      expect(scan.nextDeferralAt).toBe((await ctx.store.read(middle as FateId)).deferUntil);
    });
  });
}
