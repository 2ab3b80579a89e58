import { ALL_STATUSES, type FateId, newFateId, STORED_STATUSES, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { mapLimit, step, useFixture } from './context.js';

export function lifecycleTests(target: ConformanceTarget): void {
  describe('transactions', () => {
    const ctx = useFixture(target);

    it('creates transactions in status NEW with an empty stack', async () => {
      const id = await ctx.store.create();
      const view = await ctx.store.read(id);
      expect(view.status).toBe(Status.NEW);
      expect(view.stack).toEqual([]);
      expect(typeof view.info.created).toBe('number');
      expect(view.reservation).toBeUndefined();
    });

    it('reads an absent id as UNKNOWN with an empty stack and no info', async () => {
      const view = await ctx.store.read(newFateId());
      expect(view.status).toBe(Status.UNKNOWN);
      expect(view.stack).toEqual([]);
      expect(view.info).toEqual({});
    });

    it('gives 2,000 creates 2,000 distinct ids', async () => {
      const ids = await mapLimit(Array.from({ length: 2_000 }), 100, () => ctx.store.create());
      expect(new Set(ids).size).toBe(2_000);
      const listed = await ctx.store.list({ statuses: [Status.NEW] });
      expect(listed.length).toBe(2_000);
    });

    it('seeds a SUBMITTED transaction with its first step and info', async () => {
      const { id, created } = await ctx.store.seed({
        step: step('first', { n: 1 }),
        opName: 'compact',
        autoClean: true,
      });
      expect(created).toBe(true);
      const other = await ctx.client();
      const view = await other.read(id);
      expect(view.status).toBe(Status.SUBMITTED);
      expect(view.stack).toEqual([step('first', { n: 1 })]);
      expect(view.info.opName).toBe('compact');
      expect(view.info.autoClean).toBe(true);
    });

    it('shows the holder of a reserved transaction in read, list and reservations', async () => {
      const id = await ctx.store.create();
      const held = await ctx.store.tryReserve(id);
      expect(held?.reservation.lockId).toBe(ctx.store.lockId);
      const other = await ctx.client();
      expect((await other.read(id)).reservation).toEqual(held?.reservation);
      expect((await other.list()).find((s) => s.id === id)?.reservation).toEqual(held?.reservation);
      expect(await other.reservations()).toEqual([{ id, reservation: held?.reservation }]);
    });

    it('lists exactly the right ids for each of the 128 subsets of statuses', async () => {
      const byStatus = new Map<Status, FateId>();
      for (const status of STORED_STATUSES) {
        const id = await ctx.store.create();
        const h = await ctx.store.reserve(id);
        await h.commit([{ op: 'setStatus', status }, { op: 'unreserve' }]);
        byStatus.set(status, id);
      }
      const other = await ctx.client();
      for (let mask = 0; mask < 1 << ALL_STATUSES.length; mask++) {
        const subset = ALL_STATUSES.filter((_, i) => mask & (1 << i));
        const want = subset.flatMap((s) => (byStatus.has(s) ? [byStatus.get(s)] : [])).sort();
        const got = (await other.list({ statuses: subset })).map((s) => s.id).sort();
        expect(got, `statuses ${subset.join(',')}`).toEqual(want);
      }
    });

    it('filters list by op name', async () => {
      const a = await ctx.store.seed({ step: step(), opName: 'a' });
      await ctx.store.seed({ step: step(), opName: 'b' });
      const listed = await ctx.store.list({ opName: 'a' });
      expect(listed.map((s) => s.id)).toEqual([a.id]);
      expect(listed[0]).toMatchObject({ status: Status.SUBMITTED, top: 'step', stackDepth: 1 });
    });
  });
}
