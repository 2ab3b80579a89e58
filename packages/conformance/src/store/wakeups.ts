import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, step, useFixture } from './context.js';

export function wakeupTests(target: ConformanceTarget): void {
  describe('wake-ups', () => {
    const ctx = useFixture(target);

    it('wakes another client when work is seeded, until it unsubscribes', async (t) => {
      if (!ctx.store.capabilities.wakeups) {
        t.skip(); // the backend declares no wake-ups
        return;
      }
      const listener = await ctx.client();
      let woken = 0;
      const unsubscribe = await listener.onWakeup(() => {
        woken++;
      });
      await ctx.store.seed({ step: step(), opName: 'op' });
      await eventually('a wake-up arrives', async () => woken > 0, 5_000);
      await unsubscribe();
      const seen = woken;
      await ctx.store.seed({ step: step(), opName: 'op' });
      await new Promise((r) => setTimeout(r, 300));
      expect(woken).toBe(seen);
    });

    it('wakes another client when work is seeded in a batch', async (t) => {
      if (!ctx.store.capabilities.wakeups) {
        t.skip(); // the backend declares no wake-ups
        return;
      }
      const listener = await ctx.client();
      let woken = 0;
      await listener.onWakeup(() => {
        woken++;
      });
      await ctx.store.seedMany([
        { step: step(), opName: 'op' },
        { step: step(), opName: 'op' },
      ]);
      await eventually('a wake-up arrives', async () => woken > 0, 5_000);
    });
  });
}
