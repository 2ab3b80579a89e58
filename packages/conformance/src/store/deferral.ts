import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, rejection, step, useFixture } from './context.js';

export function deferralTests(target: ConformanceTarget): void {
  describe('stored deferral', () => {
    const ctx = useFixture(target);

    it('hides an id unreserved with a deferral from the scans of every client until it passes', async () => {
      const other = await ctx.client();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await ctx.store.reserve(id);
      const before = ctx.store.now();
      await h.unreserve(600);
      for (const c of [ctx.store, other]) {
        const scan = await c.scanRunnable();
        expect(scan.ids).not.toContain(id);
        // `before` is this client's estimate of the store's clock, off by up to half a round
        // trip either way (a TLS run under load saw it a few ms ahead of the stamp)
        expect(scan.nextDeferralAt).toBeGreaterThanOrEqual(before + 600 - 50);
      }
      await eventually(
        'the deferral passes',
        async () => (await other.scanRunnable()).ids.includes(id),
        5_000,
      );
      expect(ctx.store.now() - before).toBeGreaterThanOrEqual(550);
      expect((await ctx.store.scanRunnable()).ids).toEqual([id]);
    });

    it('keeps a deferred id reservable directly (deferral only steers work finders)', async () => {
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      await (await ctx.store.reserve(id)).unreserve(60_000);
      expect(await ctx.store.tryReserve(id)).toBeDefined();
    });

    it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])(
      'refuses deferral %s and changes nothing',
      async (ms) => {
        const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
        const h = await ctx.store.reserve(id);
        const err = await rejection(h.unreserve(ms));
        expect(err).toBeInstanceOf(RangeError);
        expect(err.code).toBe('FATE_INVALID_ARGUMENT');
        expect(h.isReserved).toBe(true);
        expect((await ctx.store.read(id)).reservation).toEqual(h.reservation);
        await h.unreserve(0);
        expect((await ctx.store.scanRunnable()).ids).toEqual([id]);
      },
    );
  });
}
