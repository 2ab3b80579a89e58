import { type FateId, type RecordWrite, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, rejection, step, useFixture } from '../store/context.js';

/** Enough injected faults to outlast every repeat the guard makes of one call. */
const ALWAYS = 10;

const releases = (_id: FateId, _r: unknown, change: RecordWrite) => change.release !== undefined;

export function lostReplyTests(target: ConformanceTarget): void {
  describe('faults: lost replies and unknown outcomes', () => {
    const ctx = useFixture(target);

    /**
     * A handle of a faulty client (registered when asked) whose write setting
     * FAILED_IN_PROGRESS applied and lost its reply every time: its outcome is unknown.
     */
    async function unknownOutcome(register: boolean) {
      const { store, faults } = await ctx.faultyClient();
      if (register) await store.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await store.reserve(id);
      await h.setStatus(Status.IN_PROGRESS);
      faults.inject('lose-reply', 'write', ALWAYS);
      expect((await rejection(h.setStatus(Status.FAILED_IN_PROGRESS))).code).toBe(
        'FATE_STORE_UNAVAILABLE',
      );
      faults.heal();
      expect(h.outcomeUnknown).toBe(true);
      return { store, id, h };
    }

    it('takes a reservation whose reply was lost as its own when it asks again', async () => {
      const { store, faults } = await ctx.faultyClient();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      faults.inject('lose-reply', 'tryReserve');
      const h = await store.tryReserve(id);
      expect(h?.isReserved).toBe(true);
      expect(await ctx.store.reservations()).toEqual([{ id, reservation: h?.reservation }]);
      await h?.unreserve();
      expect((await ctx.store.scanRunnable()).ids).toEqual([id]);
    });

    it('never leaves a reservation held and forgotten when its outcome stays unknown', async () => {
      const { store, faults } = await ctx.faultyClient();
      await store.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      faults.inject('lose-reply', 'tryReserve', ALWAYS);
      expect((await rejection(store.tryReserve(id))).code).toBe('FATE_STORE_UNAVAILABLE');
      // it was stored under a live client's name; that client clears it by itself
      await eventually(
        'the unknown reservation is cleared',
        async () => (await ctx.store.reservations()).length === 0,
        5_000,
      );
      expect(await ctx.store.tryReserve(id)).toBeDefined();
    });

    it('gets at once an id it asks for again after a reservation of it was left unknown, and keeps the new one', async () => {
      for (const kind of ['lose-reply', 'fail'] as const) {
        const { store, faults } = await ctx.faultyClient();
        const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
        faults.inject(kind, 'tryReserve', ALWAYS);
        expect((await rejection(store.tryReserve(id))).code).toBe('FATE_STORE_UNAVAILABLE');
        faults.heal();
        // stored (lost replies), the store holds it under this client's unknown reservation:
        // the client clears its own first and takes it, not "held" by itself; never stored
        // (failed calls), that clear leaves the new reservation alone (same lock id, new uuid)
        const h = await store.tryReserve(id);
        expect(h?.isReserved, kind).toBe(true);
        expect(faults.calls.get('clearReservation') ?? 0, kind).toBeGreaterThan(0);
        expect(await ctx.store.reservations()).toEqual([{ id, reservation: h?.reservation }]);
        await h?.setStatus(Status.IN_PROGRESS);
        await h?.unreserve();
      }
    });

    it('stores a seed whose reply was lost once, and says it created it', async () => {
      const { store, faults } = await ctx.faultyClient();
      faults.inject('lose-reply', 'insert', 2);
      const plain = await store.seed({ step: step('a'), opName: 'op' });
      const keyed = await store.seed({
        step: step('b'),
        opName: 'op',
        key: { type: 'k', key: '1' },
      });
      expect(plain.created).toBe(true);
      expect(keyed.created).toBe(true);
      expect((await ctx.store.list()).map((t) => t.id).sort()).toEqual([plain.id, keyed.id].sort());
      faults.inject('lose-reply', 'insertMany');
      const many = await store.seedMany([
        { step: step('c'), opName: 'op' },
        { step: step('d'), opName: 'op', key: { type: 'k', key: '1' } },
      ]);
      expect(many.map((r) => r.created)).toEqual([true, false]);
      expect(many[1]?.id).toBe(keyed.id);
      expect(await ctx.store.list()).toHaveLength(3);
    });

    it('ends a reservation whose release reply was lost, with its changes', async () => {
      const { store, faults } = await ctx.faultyClient();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await store.reserve(id);
      faults.inject('lose-reply', 'write');
      await h.commit([{ op: 'setStatus', status: Status.IN_PROGRESS }, { op: 'unreserve' }]);
      expect(h.isReserved).toBe(false);
      const view = await ctx.store.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.reservation).toBeUndefined();
      const d = await store.reserve(id);
      faults.inject('lose-reply', 'write');
      await d.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'delete' }]);
      expect((await ctx.store.read(id)).status).toBe(Status.UNKNOWN);
    });

    it('asks again for a write whose reply was lost, and goes on holding the transaction', async () => {
      const { store, faults } = await ctx.faultyClient();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await store.reserve(id);
      faults.inject('lose-reply', 'write');
      await h.setStatus(Status.IN_PROGRESS);
      faults.inject('lose-reply', 'write');
      await h.push(step('next'));
      expect(h.isReserved).toBe(true);
      expect(h.outcomeUnknown).toBe(false);
      const view = await ctx.store.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.stack).toEqual([step(), step('next')]);
      expect(view.reservation).toEqual(h.reservation);
    });

    it('refuses a handle whose write had an unknown outcome until it is read again', async () => {
      const { id, h } = await unknownOutcome(false);
      // the cache says IN_PROGRESS, the store FAILED_IN_PROGRESS: a push must not pass
      for (const use of [() => h.push(step('x')), () => h.getStatus(), () => h.unreserve()]) {
        expect((await rejection(use())).code).toBe('FATE_OUTCOME_UNKNOWN');
      }
      expect(await h.refresh()).toBe(true);
      expect(await h.getStatus()).toBe(Status.FAILED_IN_PROGRESS);
      expect((await rejection(h.push(step('x')))).code).toBe('FATE_ILLEGAL_STATUS');
      await h.unreserve();
      const view = await ctx.store.read(id);
      expect(view.status).toBe(Status.FAILED_IN_PROGRESS);
      expect(view.stack).toEqual([step()]);
    });

    it('registers although its first heartbeat failed or lost its reply; a periodic beat is tried once', async () => {
      for (const kind of ['fail', 'lose-reply'] as const) {
        const { store, faults } = await ctx.faultyClient();
        faults.inject(kind, 'heartbeat', 1);
        await store.registerInstance({ group: 'g' });
        expect((await ctx.store.instanceRecords()).map((r) => r.lockId)).toContain(store.lockId);
        faults.inject('fail', 'heartbeat', 1);
        expect((await rejection(store.heartbeat())).code).toBe('FATE_STORE_UNAVAILABLE');
        await store.heartbeat();
        await store.unregisterInstance();
      }
      // a store away longer than the repeats still fails the registration, typed
      const { store, faults } = await ctx.faultyClient();
      faults.inject('fail', 'heartbeat', ALWAYS);
      expect((await rejection(store.registerInstance())).code).toBe('FATE_STORE_UNAVAILABLE');
    });

    it('releases a reservation whose handle holds it only with an unknown outcome; refresh() then says so', async () => {
      const { store, id, h } = await unknownOutcome(true);
      // a caller that neither refreshes nor abandons the handle (it keeps a reference) must
      // not keep the transaction from everyone until this client exits
      const kept = await store.reserve((await ctx.store.seed({ step: step(), opName: 'op' })).id);
      expect((await store.releaseOrphans()).map((r) => r.id)).toEqual([id]);
      expect((await ctx.store.reservations()).map((r) => r.id)).toEqual([kept.id]);
      expect(await h.refresh()).toBe(false);
      expect(h.isReserved).toBe(false);
      const again = await ctx.store.tryReserve(id);
      expect(again?.isReserved).toBe(true);
      expect(await again?.getStatus()).toBe(Status.FAILED_IN_PROGRESS);
      await again?.unreserve();
      await kept.unreserve();
    });

    it('releases reservations held under its own name that it forgot (a store that lost a release)', async () => {
      const { store, faults } = await ctx.faultyClient();
      await store.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await store.reserve(id);
      faults.inject('drop', 'write', 1, releases);
      await h.unreserve(); // acknowledged, never applied
      expect(h.isReserved).toBe(false);
      expect((await ctx.store.reservations()).map((r) => r.id)).toEqual([id]);
      const kept = await store.reserve((await ctx.store.seed({ step: step(), opName: 'op' })).id);
      const released = await store.releaseOrphans();
      expect(released.map((r) => r.id)).toEqual([id]);
      expect((await ctx.store.reservations()).map((r) => r.id)).toEqual([kept.id]);
      expect(kept.isReserved).toBe(true);
      await kept.setStatus(Status.IN_PROGRESS);
    });
  });
}
