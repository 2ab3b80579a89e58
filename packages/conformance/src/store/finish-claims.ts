import { randomUUID } from 'node:crypto';
import { type FateId, type FateStore, type FatesStore, type Reservation, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { ALWAYS, seeded, slots, sorted } from './claims.js';
import { eventually, rejection, useFixture, withBackend } from './context.js';

const done = { status: Status.SUCCESSFUL, release: { deferMs: 0 } } as const;

/** A handle on the lowest id, taken to run; the ids after it. */
async function running(store: FatesStore, n: number): Promise<[FateStore, FateId[]]> {
  const [first, ...rest] = await seeded(store, n);
  const h = await store.tryReserve(first as FateId, { start: true });
  if (!h) throw new Error(`${first} could not be reserved`);
  return [h, rest];
}

/** Issue 23: the finishing write of one transaction carries the claim of the next. */
export function finishClaimTests(target: ConformanceTarget): void {
  describe('finish and claim next', () => {
    const ctx = useFixture(target);

    it('claims the next runnable ids with the write that ends a reservation', async () => {
      const [h, rest] = await running(ctx.store, 4);
      const next = ctx.store.claimNext(h, undefined, { limit: 2 });
      await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      const { claimed, refused } = await next;
      expect(refused).toEqual([]);
      expect(claimed.map((c) => c.id)).toEqual(rest.slice(0, 2));
      for (const c of claimed) {
        expect(c.startedNow).toBe(true);
        expect(c.reservation.lockId).toBe(ctx.store.lockId);
        expect(await c.getStatus()).toBe(Status.IN_PROGRESS);
        expect((await ctx.store.read(c.id)).reservation).toEqual(c.reservation);
      }
      const finished = await ctx.store.read(h.id);
      expect(finished.status).toBe(Status.SUCCESSFUL);
      expect(finished.reservation ?? null).toBeNull();
      expect(sorted((await ctx.store.scanRunnable()).ids)).toEqual(rest.slice(2));
    });

    it('claims nothing when the handle ends otherwise, or a later claimNext replaces it', async () => {
      const [h, rest] = await running(ctx.store, 3);
      const first = ctx.store.claimNext(h, undefined, { limit: 1 });
      const second = ctx.store.claimNext(h, undefined, { limit: 1 });
      expect((await first).claimed).toEqual([]); // replaced
      await h.setStatus(Status.SUCCESSFUL); // not an ending write: nothing yet
      await h.delete();
      expect((await second).claimed.map((c) => c.id)).toEqual(rest.slice(0, 1));
      const [c] = (await second).claimed;
      const third = ctx.store.claimNext(c as never, undefined, { limit: 1 });
      c?.abandon();
      expect((await third).claimed).toEqual([]);
    });

    it('fails a fenced-off finishing write alone: it claims nothing', async () => {
      const [b, rest] = await running(ctx.store, 3);
      const next = ctx.store.claimNext(b, undefined, { limit: 2 });
      const cleared = await withBackend(ctx.fixture, (backend) =>
        backend.clearReservation(b.id, b.reservation),
      );
      expect(cleared).toBe(true);
      const ending = b.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'unreserve' }]);
      expect((await rejection(ending)).code).toBe('FATE_NOT_RESERVED');
      expect((await next).claimed).toEqual([]);
      expect(await ctx.store.reservations()).toEqual([]);
      expect((await ctx.store.read(b.id)).status).toBe(Status.IN_PROGRESS); // untouched
      expect(sorted((await ctx.store.scanRunnable()).ids)).toEqual(sorted([b.id, ...rest]));
    });

    it('applies the write and claims atomically per item and fenced per item (backend)', async ({
      skip,
    }) => {
      await withBackend(ctx.fixture, async (backend) => {
        if (typeof backend.finishAndClaim !== 'function') return skip();
        const ids = await seeded(ctx.store, 4);
        const [a, b, c] = ids as [FateId, FateId, FateId];
        const [ra] = slots('w1@finish', 1) as [Reservation];
        expect(await backend.tryReserve(a, ra, true)).toMatchObject({ status: Status.SUBMITTED });
        const rs = slots('w1@finish', 2);
        // fenced off: a wrong reservation writes nothing and claims nothing
        const wrong = { lockId: ra.lockId, uuid: randomUUID() };
        expect(await backend.finishAndClaim(a, wrong, done, undefined, rs)).toEqual({
          written: false,
          claimed: [],
        });
        expect((await backend.read(a))?.reservation).toEqual(ra);
        expect(sorted((await backend.scanRunnable(undefined, 10)).ids)).toEqual([b, c, ids[3]]);
        const got = await backend.finishAndClaim(a, ra, done, undefined, rs);
        expect(got.written).toBe(true);
        expect(got.claimed.map((x) => x.id)).toEqual([b, c]);
        expect(got.claimed.map((x) => x.op)).toEqual(['op', 'op']);
        expect(got.claimed.map((x) => x.record.status)).toEqual([
          Status.SUBMITTED,
          Status.SUBMITTED,
        ]);
        expect(got.claimed.map((x) => x.record.reservation)).toEqual(rs);
        expect(await backend.read(a)).toMatchObject({
          status: Status.SUCCESSFUL,
          reservation: null,
        });
        expect(await backend.read(b)).toMatchObject({
          status: Status.IN_PROGRESS,
          reservation: rs[0],
        });
        // each claimed record is fenced on its own reservation
        const [r0, r1] = rs as [Reservation, Reservation];
        expect(await backend.write(b, r1, { status: Status.FAILED })).toBe(false);
        expect(await backend.write(c, r1, { status: Status.FAILED })).toBe(true);
        expect(await backend.clearReservation(b, r0)).toBe(true);
      });
    });

    it('answers what it took when repeated after a lost reply, and claims nothing more', async ({
      skip,
    }) => {
      await withBackend(ctx.fixture, async (backend) => {
        if (typeof backend.finishAndClaim !== 'function') return skip();
        const ids = await seeded(ctx.store, 5);
        const a = ids[0] as FateId;
        const [ra] = slots('w1@finish', 1) as [Reservation];
        await backend.tryReserve(a, ra, true);
        const rs = slots('w1@finish', 2);
        const first = await backend.finishAndClaim(a, ra, done, undefined, rs);
        const again = await backend.finishAndClaim(a, ra, done, undefined, rs);
        expect(first.written).toBe(true);
        expect(again.written).toBe(false); // the reservation ended with the first
        expect(sorted(again.claimed.map((c) => c.id))).toEqual(ids.slice(1, 3));
        for (const c of again.claimed) {
          expect(c.record.status).toBe(Status.IN_PROGRESS); // as stored now: "may have run"
          expect(c.record.reservation).toEqual(
            first.claimed.find((f) => f.id === c.id)?.record.reservation,
          );
        }
        expect(sorted((await backend.scanRunnable(undefined, 10)).ids)).toEqual(ids.slice(3));
      });
    });

    it('never claims a deferred or reserved record, nor one outside the range', async () => {
      const [a, b, c, d, e] = await seeded(ctx.store, 5);
      const other = await ctx.client();
      await other.tryReserve(b as FateId);
      await (await other.tryReserve(c as FateId))?.unreserve(60_000);
      const h = await ctx.store.tryReserve(a as FateId, { start: true });
      const next = ctx.store.claimNext(h as never, { end: e as string }, { limit: 5 });
      await h?.unreserve(60_000); // deferred itself: not claimed back
      expect((await next).claimed.map((x) => x.id)).toEqual([d]);
      expect((await ctx.store.read(e as FateId)).reservation ?? null).toBeNull();
    });

    it('takes what a finish-claim whose reply was lost took, when it asks again', async () => {
      const { store, faults } = await ctx.faultyClient();
      const [a, ...rest] = await seeded(ctx.store, 4);
      const h = await store.tryReserve(a as FateId, { start: true });
      faults.inject('lose-reply', 'finishAndClaim');
      faults.inject('lose-reply', 'write'); // the fallback's own lost reply
      const next = store.claimNext(h as never, undefined, { limit: 2 });
      await h?.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      const { claimed } = await next;
      expect(claimed.map((c) => c.id)).toEqual(rest.slice(0, 2));
      expect((await ctx.store.read(a as FateId)).status).toBe(Status.SUCCESSFUL);
      const held = await ctx.store.reservations();
      expect(sorted(held.map((r) => r.reservation.uuid))).toEqual(
        sorted(claimed.map((c) => c.reservation.uuid)),
      );
      for (const c of claimed) await c.unreserve();
      expect(await ctx.store.reservations()).toEqual([]);
    });

    it('clears by itself what a finish-claim took when its outcome stays unknown', async () => {
      const { store, faults } = await ctx.faultyClient();
      await store.registerInstance();
      const [a] = await seeded(ctx.store, 4);
      const h = await store.tryReserve(a as FateId, { start: true });
      faults.inject('lose-reply', 'finishAndClaim', ALWAYS);
      faults.inject('lose-reply', 'write', ALWAYS);
      const next = store.claimNext(h as never, undefined, { limit: 2 });
      const err = await rejection(
        h?.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]) as never,
      );
      expect(err.code).toBe('FATE_STORE_UNAVAILABLE');
      expect((await next).claimed).toEqual([]);
      await eventually(
        'the unknown claims are cleared',
        async () => (await ctx.store.reservations()).length === 0,
        8_000,
      );
      expect((await ctx.store.read(a as FateId)).status).toBe(Status.SUCCESSFUL);
    });

    it('judges due by the store clock when this client is 30 s ahead', async ({ skip }) => {
      if (!ctx.store.capabilities.multiProcess) return skip(); // one clock: nothing to judge
      const { store, faults } = await ctx.faultyClient();
      const [a, b] = await seeded(ctx.store, 2);
      await (await ctx.store.tryReserve(b as FateId))?.unreserve(10_000);
      faults.skewClock(30_000);
      const h = await store.tryReserve(a as FateId, { start: true });
      const next = store.claimNext(h as never, undefined, { limit: 2 });
      await h?.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      expect((await next).claimed).toEqual([]);
    });

    it('refuses a bad limit, range or handle with FATE_INVALID_ARGUMENT', async () => {
      const [h] = await running(ctx.store, 2);
      for (const limit of [0, 1_001, 1.5]) {
        const err = await rejection(ctx.store.claimNext(h, undefined, { limit }));
        expect(err.code).toBe('FATE_INVALID_ARGUMENT');
      }
      const bad = await rejection(ctx.store.claimNext(h, { start: 'ZZ' }, { limit: 1 }));
      expect(bad.code).toBe('FATE_INVALID_ARGUMENT');
      const other = await ctx.client();
      const foreign = await rejection(other.claimNext(h, undefined, { limit: 1 }));
      expect(foreign.code).toBe('FATE_INVALID_ARGUMENT');
      expect((await ctx.store.read(h.id)).reservation?.lockId).toBe(ctx.store.lockId);
    });
  });
}
