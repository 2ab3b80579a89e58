import { type FateId, type FatesStore, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';
import { finish, HOUR } from './query-helpers.js';

/** A finished transaction, stamped as finished `ago` ms before the store's now (or unstamped). */
async function finished(
  store: FatesStore,
  status: Status,
  ago: number | undefined,
  retainMs?: number,
): Promise<FateId> {
  const { id } = await store.seed({
    step: step(),
    opName: 'op',
    ...(retainMs !== undefined ? { retainMs } : {}),
  });
  await finish(store, id, status, ago);
  return id;
}

export function ageOffTests(target: ConformanceTarget): void {
  describe('age-off of finished transactions', () => {
    const ctx = useFixture(target);

    it('deletes finished transactions past their retention, keeps the rest', async () => {
      const store = ctx.store;
      const old = await finished(store, Status.SUCCESSFUL, 2 * HOUR);
      const oldFailed = await finished(store, Status.FAILED, 2 * HOUR);
      const young = await finished(store, Status.SUCCESSFUL, 10);
      const keptLonger = await finished(store, Status.SUCCESSFUL, 2 * HOUR, 3 * HOUR);
      const shortLived = await finished(store, Status.FAILED, 10 * 60_000, 60_000);
      const running = await store.seed({ step: step(), opName: 'op' });
      const held = await finished(store, Status.SUCCESSFUL, 2 * HOUR);
      const holder = await store.reserve(held);
      expect(await store.ageOff({ retentionMs: HOUR })).toEqual({ stamped: 0, deleted: 3 });
      const left = (await store.list()).map((t) => t.id).sort();
      expect(left).toEqual([young, keptLonger, running.id, held].sort());
      for (const gone of [old, oldFailed, shortLived]) {
        expect((await store.read(gone)).status).toBe(Status.UNKNOWN);
      }
      await holder.unreserve();
    });

    it('takes a finish stamp with a fraction of a millisecond, and ages it off by it', async () => {
      // the stamp is the caller's number (info.ageOff): a store whose columns are whole ms
      // must round it, not refuse the finishing write forever
      const store = ctx.store;
      const old = await finished(store, Status.SUCCESSFUL, 2 * HOUR + 0.25);
      const young = await finished(store, Status.SUCCESSFUL, 10.5);
      expect((await store.read(old)).status).toBe(Status.SUCCESSFUL);
      expect(await store.ageOff({ retentionMs: HOUR })).toEqual({ stamped: 0, deleted: 1 });
      expect((await store.list()).map((t) => t.id)).toEqual([young]);
    });

    it('stamps finished transactions that have no stamp, and ages them off from then', async () => {
      const id = await finished(ctx.store, Status.SUCCESSFUL, undefined);
      const before = ctx.store.now();
      // this client's estimate of the store's clock may trail the finish it just wrote by up
      // to a round trip: let it pass, so "retention 0" finds it due
      await new Promise((r) => setTimeout(r, 50));
      // A store that indexes finish times (and deletes in batches) knows when it finished:
      // due from then. One that does not stamps it on first sight, due from the stamp.
      const first = await ctx.store.ageOff({ retentionMs: 0 });
      if (first.deleted === 1) {
        expect(first).toEqual({ stamped: 0, deleted: 1 });
        expect(await ctx.store.list()).toEqual([]);
        return;
      }
      expect(first).toEqual({ stamped: 1, deleted: 0 });
      const stamp = (await ctx.store.read(id)).info.ageOff ?? 0;
      expect(stamp).toBeGreaterThanOrEqual(before - 1_000);
      expect(await ctx.store.ageOff({ retentionMs: HOUR })).toEqual({ stamped: 0, deleted: 0 });
      expect(await ctx.store.ageOff({ retentionMs: 0 })).toEqual({ stamped: 0, deleted: 1 });
      expect(await ctx.store.list()).toEqual([]);
    });

    it('never deletes a transaction deleted and seeded again before its reservation (issue 21, fault 3)', async () => {
      const { store: sweeper, faults } = await ctx.faultyClient();
      const key = { type: 'table', key: 'row-7' };
      const { id } = await ctx.store.seed({ step: step(), opName: 'op', key });
      const h = await ctx.store.reserve(id);
      await h.commit([
        { op: 'setStatus', status: Status.SUCCESSFUL },
        { op: 'setInfo', key: 'ageOff', value: ctx.store.now() - 2 * HOUR },
        { op: 'unreserve' },
      ]);
      // The sweeper has decided from its listing; before its reservation lands, another
      // client deletes the finished transaction and the same key is seeded again.
      let raced = false;
      const race = async () => {
        if (raced) return;
        raced = true;
        await (await ctx.store.reserve(id)).delete();
        expect((await ctx.store.seed({ step: step(), opName: 'op', key })).created).toBe(true);
      };
      // before the reservation it takes to check and delete, or its batched delete
      faults.before('tryReserve', race);
      faults.before('deleteAgedOff', race);
      expect((await sweeper.ageOff({ retentionMs: HOUR })).deleted).toBe(0);
      expect(raced).toBe(true);
      const after = await ctx.store.read(id);
      expect(after.status).toBe(Status.SUBMITTED);
      expect(after.reservation).toBeUndefined();
    });

    it('never deletes a transaction finished again or reserved after the sweep found it due', async () => {
      const { store: sweeper, faults } = await ctx.faultyClient();
      const again = await finished(ctx.store, Status.SUCCESSFUL, 2 * HOUR);
      const taken = await finished(ctx.store, Status.FAILED, 2 * HOUR);
      // Both were due when the sweep listed them; before it deletes, one is finished again
      // (a fresh stamp) and the other is reserved by another client.
      let holder: Awaited<ReturnType<FatesStore['reserve']>> | undefined;
      const race = async () => {
        if (holder) return;
        holder = await ctx.store.reserve(taken);
        const h = await ctx.store.reserve(again);
        await h.commit([
          { op: 'setInfo', key: 'ageOff', value: ctx.store.now() },
          { op: 'unreserve' },
        ]);
      };
      // once the sweep has its candidates (from the index, or the guard's full read), before
      // it reserves or deletes any (it reserves several at once)
      faults.after('ageOffDue', race);
      faults.after('list', race);
      expect((await sweeper.ageOff({ retentionMs: HOUR })).deleted).toBe(0);
      expect(holder).toBeDefined();
      expect((await ctx.store.read(again)).status).toBe(Status.SUCCESSFUL);
      expect((await ctx.store.read(taken)).status).toBe(Status.FAILED);
      await holder?.unreserve();
    });

    it('refuses a bad retention or seed retainMs and changes nothing', async () => {
      await finished(ctx.store, Status.SUCCESSFUL, 2 * HOUR);
      for (const bad of [-1, 1.5, Number.NaN]) {
        await expect(ctx.store.ageOff({ retentionMs: bad })).rejects.toMatchObject({
          code: 'FATE_INVALID_ARGUMENT',
        });
        await expect(
          ctx.store.seed({ step: step(), opName: 'op', retainMs: bad }),
        ).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
      }
      expect(await ctx.store.list()).toHaveLength(1);
    });
  });
}
