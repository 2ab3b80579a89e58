import {
  type FateId,
  hashPartitionScanner,
  inRange,
  partitionRange,
  rangePartitionScanner,
  STORED_STATUSES,
  Status,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import type { SuiteContext } from './context.js';
import { seedMany, step, useFixture } from './context.js';

/** One transaction per stored status, plus reserved and deferred runnable ones. */
async function mixedStore(ctx: SuiteContext): Promise<{ runnable: FateId[] }> {
  const runnable: FateId[] = [];
  for (const status of STORED_STATUSES) {
    for (let i = 0; i < 3; i++) {
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await ctx.store.reserve(id);
      await h.commit([{ op: 'setStatus', status }, { op: 'unreserve' }]);
      if (
        status === Status.SUBMITTED ||
        status === Status.IN_PROGRESS ||
        status === Status.FAILED_IN_PROGRESS
      ) {
        runnable.push(id);
      }
    }
  }
  const reserved = await ctx.store.seed({ step: step(), opName: 'op' });
  await ctx.store.reserve(reserved.id);
  const deferred = await ctx.store.seed({ step: step(), opName: 'op' });
  await (await ctx.store.reserve(deferred.id)).unreserve(60_000);
  return { runnable: runnable.sort() };
}

export function scanTests(target: ConformanceTarget): void {
  describe('runnable scans and partitions', () => {
    const ctx = useFixture(target);

    it('returns only SUBMITTED, IN_PROGRESS and FAILED_IN_PROGRESS ids, unreserved and not deferred', async () => {
      const { runnable } = await mixedStore(ctx);
      const other = await ctx.client();
      const scan = await other.scanRunnable();
      expect(scan.ids).toEqual(runnable);
      expect(scan.itemsRead).toBeGreaterThanOrEqual(runnable.length);
      expect(scan.ms).toBeGreaterThanOrEqual(0);
    });

    it('keeps range scans inside their range', async () => {
      const ids = (await seedMany(ctx.store, 200)).sort();
      const ranges = [
        { start: '40000000', end: '80000000' },
        { end: '20000000' },
        { start: 'c0000000' },
        { start: ids[50], end: ids[120] },
      ];
      for (const range of ranges) {
        const scan = await ctx.store.scanRunnable(range);
        expect(scan.ids).toEqual(ids.filter((id) => inRange(id, range)));
      }
    });

    it.each([1, 3, 8])(
      'yields every runnable id exactly once over %i partitions, hash and range',
      async (total) => {
        const ids = (await seedMany(ctx.store, 300)).sort();
        for (const scanner of [hashPartitionScanner, rangePartitionScanner]) {
          const seen: FateId[] = [];
          for (let partition = 0; partition < total; partition++) {
            seen.push(...(await scanner.scan(ctx.store, { partition, total })).ids);
          }
          expect(seen.sort(), scanner.strategy).toEqual(ids);
        }
      },
    );

    it('reads less for a range partition than for the whole store, where the backend keeps ids sorted', async (t) => {
      if (!ctx.store.capabilities.sortedScan) {
        t.skip(); // the backend declares no sorted scans
        return;
      }
      await seedMany(ctx.store, 400);
      const full = await ctx.store.scanRunnable();
      const quarter = await ctx.store.scanRunnable(partitionRange({ partition: 1, total: 4 }));
      expect(full.itemsRead).toBeGreaterThanOrEqual(400);
      expect(quarter.itemsRead).toBeLessThanOrEqual(full.itemsRead / 2);
    });
  });
}
