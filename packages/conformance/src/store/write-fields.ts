import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';

const MINUTE = 60_000;
/** How far a stored deferral may be from this client's estimate of the store's clock. */
const CLOCK_SLACK_MS = 2_000;

export function writeFieldTests(target: ConformanceTarget): void {
  describe('what a write keeps', () => {
    const ctx = useFixture(target);

    it('keeps every field a write does not change: status, stack and info each on their own', async () => {
      const reader = await ctx.client();
      const { id } = await ctx.store.seed({ step: step('first'), opName: 'op' });
      const h = await ctx.store.reserve(id);
      await h.setStatus(Status.IN_PROGRESS); // the status alone
      let view = await reader.read(id);
      expect(view.stack).toEqual([step('first')]);
      expect(view.info.opName).toBe('op');
      await h.push(step('second')); // the stack alone
      view = await reader.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.info.opName).toBe('op');
      await h.setInfo('returnValue', 42); // info alone
      view = await reader.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.stack).toEqual([step('first'), step('second')]);
      await h.commit([{ op: 'setStatus', status: Status.FAILED_IN_PROGRESS }, { op: 'unreserve' }]); // the status with a release
      view = await reader.read(id);
      expect(view.status).toBe(Status.FAILED_IN_PROGRESS);
      expect(view.stack).toEqual([step('first'), step('second')]);
      expect(view.info).toMatchObject({ opName: 'op', returnValue: 42 });
      expect(view.reservation).toBeUndefined();
    });

    it('keeps a stored deferral through a reservation and writes without release; read, list and the handle say it; unreserve(0) drops it', async () => {
      const reader = await ctx.client();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      await (await ctx.store.reserve(id)).unreserve(10 * MINUTE);
      const deferred = (await reader.read(id)).deferUntil;
      expect(deferred).toBeGreaterThan(ctx.store.now());
      const h = await ctx.store.reserve(id);
      expect(h.deferUntil).toBe(deferred);
      expect((await reader.read(id)).deferUntil).toBe(deferred);
      await h.setStatus(Status.IN_PROGRESS);
      await h.push(step('next'));
      await h.setInfo('returnValue', 'x');
      expect((await reader.read(id)).deferUntil).toBe(deferred);
      expect((await reader.list()).find((t) => t.id === id)?.deferUntil).toBe(deferred);
      await h.unreserve(0);
      expect((await reader.read(id)).deferUntil).toBe(0);
      expect((await reader.list()).find((t) => t.id === id)?.deferUntil).toBe(0);
      expect((await reader.scanRunnable()).ids).toEqual([id]);
    });

    it('leaves a cleared reservation’s record as it was, its deferral included', async () => {
      const { id } = await ctx.store.seed({ step: step('a'), opName: 'op' });
      const first = await ctx.store.reserve(id);
      await first.commit([
        { op: 'setStatus', status: Status.IN_PROGRESS },
        { op: 'push', step: step('b') },
        { op: 'unreserve', deferMs: 10 * MINUTE },
      ]);
      const held = await ctx.store.reserve(id);
      const before = await ctx.store.read(id);
      held.abandon(); // its reservation is now an orphan, cleared by clearReservation
      expect((await ctx.store.releaseOrphans()).map((r) => r.id)).toEqual([id]);
      const { reservation, ...kept } = before;
      expect(reservation).toEqual(held.reservation);
      expect(await ctx.store.read(id)).toEqual(kept);
      expect(kept.deferUntil).toBeGreaterThan(ctx.store.now());
      expect((await ctx.store.scanRunnable()).ids).toEqual([]);
    });

    it("stores a release's deferral by the store's clock, as now() tells it", async () => {
      const reader = await ctx.client();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await ctx.store.reserve(id);
      const before = ctx.store.now();
      await h.unreserve(5 * MINUTE);
      const after = ctx.store.now();
      const { deferUntil } = await reader.read(id);
      expect(deferUntil).toBeGreaterThanOrEqual(before + 5 * MINUTE - CLOCK_SLACK_MS);
      expect(deferUntil).toBeLessThanOrEqual(after + 5 * MINUTE + CLOCK_SLACK_MS);
      const scan = await reader.scanRunnable();
      expect(scan.ids).toEqual([]);
      expect(scan.nextDeferralAt).toBe(deferUntil);
    });
  });
}
