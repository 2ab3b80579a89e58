import { keyedFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';

export function keyedTests(target: ConformanceTarget): void {
  describe('keyed seeding', () => {
    const ctx = useFixture(target);
    const key = { type: 'compaction', key: 'table-7' };

    it('gives one transaction for the same key seeded twice', async () => {
      const first = await ctx.store.seed({ step: step('a'), opName: 'op', key });
      const second = await ctx.store.seed({ step: step('b'), opName: 'op', key });
      expect(first).toEqual({ id: keyedFateId(key), created: true });
      expect(second).toEqual({ id: first.id, created: false });
      const view = await ctx.store.read(first.id);
      expect(view.stack).toEqual([step('a')]);
      expect(view.info.key).toEqual(key);
    });

    it('lets exactly one of 10 concurrent seeders of one key create it', async () => {
      const other = await ctx.client();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? other : ctx.store).seed({ step: step('s', i), opName: 'op', key }),
        ),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id))).toEqual(new Set([keyedFateId(key)]));
      expect(await ctx.store.list()).toHaveLength(1);
    });

    it('lets a key be seeded again after its transaction was deleted', async () => {
      const first = await ctx.store.seed({ step: step('a'), opName: 'op', key });
      await (await ctx.store.reserve(first.id)).delete();
      const again = await ctx.store.seed({ step: step('b'), opName: 'op2', key });
      expect(again).toEqual({ id: first.id, created: true });
      const view = await ctx.store.read(again.id);
      expect(view.status).toBe(Status.SUBMITTED);
      expect(view.stack).toEqual([step('b')]);
      expect(view.info.opName).toBe('op2');
    });

    it('keeps different key types apart', async () => {
      const a = await ctx.store.seed({ step: step(), opName: 'op', key: { type: 'a', key: 'k' } });
      const b = await ctx.store.seed({ step: step(), opName: 'op', key: { type: 'b', key: 'k' } });
      expect(a.id).not.toBe(b.id);
      expect(a.created && b.created).toBe(true);
    });
  });
}
