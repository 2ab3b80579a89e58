import { type FateId, type FatesStore, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';
import { allPages, countsOf, finish, HOUR, tally } from './query-helpers.js';

export function storeQueryTests(target: ConformanceTarget): void {
  describe('store queries: listPage, counts, ageOffDue', () => {
    const ctx = useFixture(target);

    it('lists a page with filters and a cursor, without stacks', async () => {
      const store = ctx.store;
      const a = await store.seed({ step: step('big', { x: 'y'.repeat(1000) }), opName: 'a' });
      const b = await store.seed({ step: step(), opName: 'b' });
      const c = await store.seed({ step: step(), opName: 'a' });
      await finish(store, c.id, Status.SUCCESSFUL, 5);
      const held = await store.reserve(b.id);
      const d = await store.create();
      const deferred = await store.reserve(d);
      await deferred.unreserve(HOUR);
      const all = await store.listPage();
      expect(all.rows.map((r) => r.id)).toEqual([a.id, b.id, c.id, d].sort());
      expect(all.next).toBeUndefined();
      const rowA = all.rows.find((r) => r.id === a.id);
      expect(rowA).toMatchObject({ status: Status.SUBMITTED, opName: 'a', deferUntil: 0 });
      expect(rowA).not.toHaveProperty('stack');
      const only = async (q: Parameters<FatesStore['listPage']>[0]) =>
        (await store.listPage(q)).rows.map((r) => r.id);
      expect(await only({ opName: 'a' })).toEqual([a.id, c.id].sort());
      expect(await only({ statuses: [Status.SUCCESSFUL] })).toEqual([c.id]);
      expect(await only({ reserved: true })).toEqual([b.id]);
      expect(await only({ holder: store.instanceId })).toEqual([b.id]);
      expect(await only({ holder: store.lockId })).toEqual([b.id]);
      expect(await only({ holder: 'somebody-else' })).toEqual([]);
      expect(await only({ deferred: true })).toEqual([d]);
      expect((await only({ deferred: false })).sort()).toEqual([a.id, b.id, c.id].sort());
      const first = await store.listPage({ limit: 2 });
      expect(first.rows).toHaveLength(2);
      expect(first.next).toBe(first.rows[1]?.id);
      const rest = await store.listPage({ limit: 2, after: first.next as string });
      expect([...first.rows, ...rest.rows].map((r) => r.id)).toEqual(all.rows.map((r) => r.id));
      await held.unreserve();
      for (const bad of [{ limit: 0 }, { limit: 1.5 }, { after: 'x' }, { statuses: ['NOPE'] }]) {
        await expect(store.listPage(bad as never)).rejects.toMatchObject({
          code: 'FATE_INVALID_ARGUMENT',
        });
      }
    });

    it('pages return every row present throughout exactly once, under concurrent inserts and deletes', async () => {
      const store = ctx.store;
      const other = await ctx.client();
      const stable = await store.seedMany(
        Array.from({ length: 60 }, (_, i) => ({ step: step('s', i), opName: 'stable' })),
      );
      const doomed = (
        await store.seedMany(
          Array.from({ length: 30 }, (_, i) => ({ step: step('d', i), opName: 'doomed' })),
        )
      ).map((r) => r.id);
      let round = 0;
      const churn = async () => {
        round++;
        await other.seedMany(
          Array.from({ length: 3 }, (_, i) => ({ step: step('n', i), opName: 'new' })),
        );
        for (const id of doomed.splice(0, 2)) {
          const h = await other.reserve(id, { timeoutMs: 10_000 });
          await h.delete();
        }
      };
      const ids = await allPages(store, 7, churn);
      expect(round).toBeGreaterThan(5);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
      const seen = new Set(ids);
      for (const { id } of stable) expect(seen.has(id)).toBe(true);
      // Every listed row existed at some point: nothing outside what was seeded.
      const total = (await store.counts()).total;
      expect(ids.length).toBeLessThanOrEqual(total + 60);
    });

    it('counts by status and op, computed by the store, equal a full listing', async () => {
      const store = ctx.store;
      expect(await countsOf(store)).toEqual(await tally(store));
      const seeded = await store.seedMany(
        Array.from({ length: 12 }, (_, i) => ({ step: step(), opName: i % 3 ? 'x' : 'y' })),
      );
      await store.create();
      await finish(store, seeded[0]?.id as FateId, Status.SUCCESSFUL);
      await finish(store, seeded[1]?.id as FateId, Status.FAILED);
      const started = await store.tryReserve(seeded[2]?.id as FateId, { start: true });
      await started?.unreserve();
      await (await store.reserve(seeded[3]?.id as FateId)).delete();
      const counts = await store.counts();
      expect({ total: counts.total, byStatus: counts.byStatus, byOp: counts.byOp }).toEqual(
        await tally(store),
      );
      expect(counts.total).toBe(12);
      expect(counts.byStatus.SUCCESSFUL).toBe(1);
      expect(counts.byStatus.IN_PROGRESS).toBe(1);
      expect(counts.byOpStatus.reduce((n, g) => n + g.count, 0)).toBe(12);
    });

    it('counts stay exact through lost replies and failed calls mid-write', async () => {
      const { store, faults } = await ctx.faultyClient();
      faults.inject('lose-reply', 'insertMany', 2);
      const seeded = await store.seedMany(
        Array.from({ length: 8 }, (_, i) => ({ step: step(), opName: `op${i % 2}` })),
      );
      faults.inject('lose-reply', 'insert', 1);
      await store.seed({ step: step(), opName: 'op0', key: { type: 't', key: 'k' } });
      faults.inject('lose-reply', 'tryReserve', 1);
      faults.inject('lose-reply', 'write', 3);
      for (const [i, s] of seeded.slice(0, 4).entries()) {
        const h = await store.reserve(s.id);
        if (i === 0) await h.delete();
        else await h.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'unreserve' }]);
      }
      faults.inject('fail', 'write', 1);
      const h = await store.reserve(seeded[5]?.id as FateId);
      // a call that failed before reaching the store is asked again: applied once
      await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      faults.heal();
      const counts = await countsOf(ctx.store);
      expect(counts).toEqual(await tally(ctx.store));
      expect(counts.total).toBe(8);
      expect(counts.byStatus.FAILED).toBe(3);
      expect(counts.byStatus.SUCCESSFUL).toBe(1);
    });

    it('a read, a list or a query whose reply was lost is asked again, not failed', async () => {
      const { store, faults } = await ctx.faultyClient();
      const { id } = await store.seed({ step: step(), opName: 'op' });
      faults.inject('lose-reply', 'read', 1);
      expect((await store.read(id)).status).toBe(Status.SUBMITTED);
      faults.inject('lose-reply', 'list', 1);
      expect((await store.list()).map((r) => r.id)).toEqual([id]);
      faults.inject('lose-reply', 'scanRunnable', 1);
      expect((await store.scanRunnable()).ids).toEqual([id]);
      // the listings of holders and of reservations, which the sweep and the console read
      await store.registerInstance();
      faults.inject('lose-reply', 'instances', 1);
      expect((await store.instanceRecords()).map((r) => r.lockId)).toEqual([store.lockId]);
      faults.inject('lose-reply', 'instances', 1);
      expect((await store.liveInstances()).map((r) => r.lockId)).toEqual([store.lockId]);
      const h = await store.reserve(id);
      faults.inject('lose-reply', 'reservations', 1);
      expect((await store.reservations()).map((r) => r.id)).toEqual([id]);
      await h.commit([{ op: 'unreserve' }]);
      // age-off's own listing: the backend's index where it has one, the full list otherwise
      faults.inject('lose-reply', 'ageOffDue', 1).inject('lose-reply', 'list', 1);
      expect(await store.ageOff({ retentionMs: 0 })).toEqual({ stamped: 0, deleted: 0 });
      faults.heal();
      const queries = [
        ['counts', async () => expect((await store.counts()).total).toBe(1)],
        ['listPage', async () => expect((await store.listPage({})).rows).toHaveLength(1)],
        ['ageOffDue', async () => expect(await store.ageOffDue({ retentionMs: 0 })).toEqual([])],
      ] as const;
      for (const [op, check] of queries) {
        // the query itself where the backend answers it, the full list where the guard does
        faults.inject('lose-reply', op, 1).inject('lose-reply', 'list', 1);
        await check();
        faults.heal();
      }
    });

    it("age-off's index lists only finished transactions that are due, oldest first", async () => {
      const store = ctx.store;
      const { id: young } = await store.seed({ step: step(), opName: 'op' });
      await finish(store, young, Status.SUCCESSFUL, 10);
      const { id: older } = await store.seed({ step: step(), opName: 'op' });
      await finish(store, older, Status.FAILED, 3 * HOUR);
      const { id: oldest } = await store.seed({ step: step(), opName: 'op' });
      await finish(store, oldest, Status.SUCCESSFUL, 4 * HOUR);
      const { id: own } = await store.seed({ step: step(), opName: 'op', retainMs: 60_000 });
      await finish(store, own, Status.SUCCESSFUL, 10 * 60_000);
      // Unfinished, with a stale stamp in its info: never a candidate.
      const { id: running } = await store.seed({ step: step(), opName: 'op' });
      const h = await store.reserve(running);
      await h.commit([
        { op: 'setStatus', status: Status.IN_PROGRESS },
        { op: 'setInfo', key: 'ageOff', value: store.now() - 5 * HOUR },
        { op: 'unreserve' },
      ]);
      expect(await store.ageOffDue({ retentionMs: 100 * HOUR })).toEqual([
        expect.objectContaining({ id: own }),
      ]);
      const due = (await store.ageOffDue({ retentionMs: HOUR })).map((c) => c.id);
      expect(due.slice(0, 2)).toEqual([oldest, older]);
      expect([...due].sort()).toEqual([oldest, older, own].sort());
      expect(await store.ageOffDue({ retentionMs: HOUR, limit: 1 })).toHaveLength(1);
      expect((await store.ageOff({ retentionMs: HOUR })).deleted).toBe(3);
      expect(await store.ageOffDue({ retentionMs: 0 })).toEqual([
        expect.objectContaining({ id: young }),
      ]);
      expect((await store.read(running)).status).toBe(Status.IN_PROGRESS);
    });

    it("age-off's index never deletes a transaction deleted and seeded again", async () => {
      const store = ctx.store;
      const key = { type: 'table', key: 'again' };
      const { id } = await store.seed({ step: step(), opName: 'op', key });
      await finish(store, id, Status.SUCCESSFUL, 2 * HOUR);
      expect((await store.ageOffDue({ retentionMs: HOUR })).map((c) => c.id)).toEqual([id]);
      await (await store.reserve(id)).delete();
      expect((await store.seed({ step: step(), opName: 'op', key })).created).toBe(true);
      expect(await store.ageOffDue({ retentionMs: 0 })).toEqual([]);
      expect(await store.ageOff({ retentionMs: 0 })).toEqual({ stamped: 0, deleted: 0 });
      expect((await store.read(id)).status).toBe(Status.SUBMITTED);
    });
  });
}
