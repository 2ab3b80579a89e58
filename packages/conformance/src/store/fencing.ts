import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { clearedWhenDead, rejection, step, useFixture } from './context.js';

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
      expect(await clearedWhenDead(ctx.store, stale)).toEqual([id]);
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
      expect(await clearedWhenDead(ctx.store, paused)).toEqual([id]);
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

    it('keeps each fence and answer of writes sent together: a stale one fails alone', async () => {
      // Backends may commit the writes one client sends in one turn together (SQLite's
      // group commit): a fenced-off write must fail alone and its neighbours apply, each
      // answered as if sent alone. One client sends them all, its stale handle among them.
      const c = await ctx.client({ livenessTimeoutMs: 300 });
      await c.registerInstance();
      const lost = await ctx.store.create();
      const old = await c.reserve(lost);
      expect(await clearedWhenDead(ctx.store, c)).toEqual([lost]);
      const fresh = await c.reserve(lost, { timeoutMs: 1_000 });
      const ids = await Promise.all(Array.from({ length: 8 }, () => ctx.store.create()));
      const handles = await Promise.all(ids.map((id) => c.reserve(id)));
      const results = await Promise.allSettled([
        ...handles.slice(0, 2).map((h, i) => h.push(step(`w${i}`))),
        old.push(step('stale')),
        ...handles.slice(2).map((h, i) => h.push(step(`w${i + 2}`))),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        ...Array(2).fill('fulfilled'),
        'rejected',
        ...Array(6).fill('fulfilled'),
      ]);
      expect(((results[2] as PromiseRejectedResult).reason as { code?: string }).code).toBe(
        'FATE_NOT_RESERVED',
      );
      for (const [i, id] of ids.entries()) {
        expect((await ctx.store.read(id)).stack).toEqual([step(`w${i}`)]);
      }
      expect((await ctx.store.read(lost)).stack).toEqual([]);
      // and together again: every handle releases in one turn, the fresh handle's write beside them
      await Promise.all([...handles.map((h) => h.unreserve()), fresh.push(step('mine'))]);
      for (const id of ids) expect((await ctx.store.read(id)).reservation).toBeUndefined();
      expect((await ctx.store.read(lost)).stack).toEqual([step('mine')]);
    });
  });
}
