import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, rejection, step, useFixture } from './context.js';

export function fencingTests(target: ConformanceTarget): void {
  describe('fencing and dead reservations', () => {
    const ctx = useFixture(target);

    it('rejects every write of a holder whose reservation was cleared as dead', async () => {
      const stale = await ctx.client({ livenessTimeoutMs: 300 });
      await stale.registerInstance();
      const id = await ctx.store.create();
      const h = await stale.reserve(id);
      await h.push(step('kept'));
      // the holder stops heartbeating, as a crashed or partitioned process would
      await eventually(
        'the holder is dead',
        async () => !(await ctx.store.isAlive(stale.instanceId)),
        5_000,
      );
      expect(await ctx.store.clearDeadReservations()).toHaveLength(1);
      const taker = await ctx.store.reserve(id, { timeoutMs: 1_000 });
      for (const write of [
        () => h.push(step('stale')),
        () => h.setStatus(Status.FAILED),
        () => h.setInfo('opName', 'stale'),
        () => h.forceDelete(),
        () => h.unreserve(),
      ]) {
        expect((await rejection(write())).code).toBe('FATE_NOT_RESERVED');
      }
      const view = await ctx.store.read(id);
      expect(view.stack).toEqual([step('kept')]);
      expect(view.status).toBe(Status.NEW);
      expect(view.reservation).toEqual(taker.reservation);
      await taker.push(step('mine'));
      expect((await ctx.store.read(id)).stack).toHaveLength(2);
    });

    it('rejects the stale handle of a client that reserved the transaction again (same lock id, new uuid)', async () => {
      const paused = await ctx.client({ livenessTimeoutMs: 300 });
      await paused.registerInstance();
      const id = await ctx.store.create();
      const stale = await paused.reserve(id);
      await eventually(
        'the holder is dead',
        async () => !(await ctx.store.isAlive(paused.instanceId)),
        5_000,
      );
      expect(await ctx.store.clearDeadReservations()).toHaveLength(1);
      // the same client, back from its pause, takes the transaction again
      const fresh = await paused.reserve(id, { timeoutMs: 1_000 });
      expect(fresh.reservation.lockId).toBe(stale.reservation.lockId);
      expect((await rejection(stale.setStatus(Status.FAILED))).code).toBe('FATE_NOT_RESERVED');
      expect((await ctx.store.read(id)).status).toBe(Status.NEW);
      await fresh.push(step('mine'));
      expect((await ctx.store.read(id)).reservation).toEqual(fresh.reservation);
    });

    it('leaves the reservations of live holders alone', async () => {
      const live = await ctx.client({ livenessTimeoutMs: 5_000 });
      await live.registerInstance();
      const id = await ctx.store.create();
      const h = await live.reserve(id);
      expect(await ctx.store.clearDeadReservations()).toEqual([]);
      await h.setStatus(Status.SUBMITTED);
      expect((await ctx.store.read(id)).status).toBe(Status.SUBMITTED);
    });

    it('clears the reservations left by a client that closed, and they run again', async () => {
      const gone = await ctx.client();
      await gone.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      await gone.reserve(id);
      expect((await ctx.store.scanRunnable()).ids).toEqual([]);
      await gone.close();
      expect(await ctx.store.isAlive(gone.instanceId)).toBe(false);
      expect(await ctx.store.clearDeadReservations()).toHaveLength(1);
      expect((await ctx.store.scanRunnable()).ids).toEqual([id]);
      expect(await ctx.store.tryReserve(id)).toBeDefined();
    });
  });
}
