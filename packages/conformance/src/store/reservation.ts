import { type FatesStore, newFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { mapLimit, rejection, step, useFixture } from './context.js';

export function reservationTests(target: ConformanceTarget): void {
  describe('reservations', () => {
    const ctx = useFixture(target);

    it('lets exactly one of two clients win each of 500 ids', async () => {
      const other = await ctx.client();
      const ids = await mapLimit(Array.from({ length: 500 }), 50, () => ctx.store.create());
      const race = (c: FatesStore, order: typeof ids) =>
        mapLimit(order, 25, async (id) => ((await c.tryReserve(id)) ? id : undefined));
      const [a, b] = await Promise.all([race(ctx.store, ids), race(other, [...ids].reverse())]);
      const winsA = a.filter(Boolean);
      const winsB = b.filter(Boolean);
      expect(winsA.length + winsB.length).toBe(500);
      expect(new Set([...winsA, ...winsB]).size).toBe(500);
      const held = await ctx.store.reservations();
      expect(held).toHaveLength(500);
      const winner = new Set(winsA);
      for (const { id, reservation } of held) {
        expect(reservation.lockId).toBe(winner.has(id) ? ctx.store.lockId : other.lockId);
      }
    });

    it('lets exactly one of 16 concurrent reservers hold one id', async () => {
      const clients = [ctx.store, ...(await Promise.all([1, 2, 3].map(() => ctx.client())))];
      const id = await ctx.store.create();
      const attempts = clients.flatMap((c) => [0, 1, 2, 3].map(() => c.tryReserve(id)));
      const wins = (await Promise.all(attempts)).filter(Boolean);
      expect(wins).toHaveLength(16 - 15);
    });

    it('makes reserve() wait until the holder unreserves', async () => {
      const id = await ctx.store.create();
      const holder = await ctx.store.reserve(id);
      const other = await ctx.client();
      let got = false;
      const waiting = other.reserve(id, { timeoutMs: 10_000 }).then((h) => {
        got = true;
        return h;
      });
      await new Promise((r) => setTimeout(r, 150));
      expect(got).toBe(false);
      await holder.setStatus(Status.SUBMITTED);
      await holder.unreserve();
      const h = await waiting;
      expect(await h.getStatus()).toBe(Status.SUBMITTED);
    });

    it('ends reserve() with FATE_ABORTED on abort and FATE_TIMEOUT on timeout', async () => {
      const id = await ctx.store.create();
      await ctx.store.reserve(id);
      const other = await ctx.client();
      const controller = new AbortController();
      const aborted = other.reserve(id, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      expect((await rejection(aborted)).code).toBe('FATE_ABORTED');
      expect((await rejection(other.reserve(id, { timeoutMs: 100 }))).code).toBe('FATE_TIMEOUT');
      expect((await ctx.store.reservations()).map((r) => r.reservation.lockId)).toEqual([
        ctx.store.lockId,
      ]);
    });

    it('refuses writes and a second unreserve after unreserve', async () => {
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      await h.unreserve();
      expect(h.isReserved).toBe(false);
      for (const write of [
        () => h.push(step()),
        () => h.setStatus(Status.SUBMITTED),
        () => h.setInfo('opName', 'x'),
        () => h.delete(),
        () => h.unreserve(),
      ]) {
        expect((await rejection(write())).code).toBe('FATE_NOT_RESERVED');
      }
      expect((await ctx.store.read(id)).status).toBe(Status.NEW);
    });

    it('refuses writes after delete, but unreserve after delete is fine', async () => {
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      await h.delete();
      expect((await rejection(h.push(step()))).code).toBe('FATE_NOT_RESERVED');
      expect((await rejection(h.setStatus(Status.FAILED))).code).toBe('FATE_NOT_RESERVED');
      await h.unreserve();
      expect((await ctx.store.read(id)).status).toBe(Status.UNKNOWN);
      expect(await ctx.store.reservations()).toEqual([]);
    });

    it('fails promptly to reserve a deleted or absent id', async () => {
      const id = await ctx.store.create();
      await (await ctx.store.reserve(id)).delete();
      const other = await ctx.client();
      expect(await other.tryReserve(id)).toBeUndefined();
      expect((await rejection(other.reserve(id, { timeoutMs: 60_000 }))).code).toBe(
        'FATE_NOT_FOUND',
      );
      expect((await rejection(other.reserve(newFateId()))).code).toBe('FATE_NOT_FOUND');
    });

    it('force-deletes through the store in any status, waiting for the holder as reserve does', async () => {
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await ctx.store.reserve(id);
      await h.setStatus(Status.IN_PROGRESS);
      const other = await ctx.client();
      expect((await rejection(other.forceDelete(id, { timeoutMs: 50 }))).code).toBe('FATE_TIMEOUT');
      expect((await ctx.store.read(id)).status).toBe(Status.IN_PROGRESS);
      const deleting = other.forceDelete(id, { timeoutMs: 60_000 });
      await h.unreserve();
      await deleting;
      expect((await ctx.store.read(id)).status).toBe(Status.UNKNOWN);
      expect(await ctx.store.reservations()).toEqual([]);
      expect((await rejection(other.forceDelete(id))).code).toBe('FATE_NOT_FOUND');
    });

    it('starts a SUBMITTED transaction with the reservation when asked, and nothing else', async () => {
      const submitted = await ctx.store.seed({ step: step(), opName: 'op' });
      const fresh = await ctx.store.create();
      const h = await ctx.store.tryReserve(submitted.id, { start: true });
      expect(await h?.getStatus()).toBe(Status.IN_PROGRESS);
      expect(h?.startedNow, 'this reservation started it: nothing of it has run').toBe(true);
      const view = await ctx.store.read(submitted.id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.stack).toEqual([step()]);
      expect(view.info.opName).toBe('op');
      expect(view.reservation).toEqual(h?.reservation);
      const n = await ctx.store.tryReserve(fresh, { start: true });
      expect(await n?.getStatus()).toBe(Status.NEW);
      await n?.commit([
        { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
        { op: 'unreserve' },
      ]);
      const f = await ctx.store.tryReserve(fresh, { start: true });
      expect(await f?.getStatus()).toBe(Status.FAILED_IN_PROGRESS);
      // without start, a SUBMITTED transaction stays SUBMITTED
      const other = await ctx.store.seed({ step: step(), opName: 'op' });
      expect(await (await ctx.store.tryReserve(other.id))?.getStatus()).toBe(Status.SUBMITTED);
      expect((await ctx.store.read(other.id)).status).toBe(Status.SUBMITTED);
    });

    it('gives a new reservation uuid to every attempt, even by the same client', async () => {
      const id = await ctx.store.create();
      const first = await ctx.store.reserve(id);
      expect(await ctx.store.tryReserve(id)).toBeUndefined();
      await first.unreserve();
      const second = await ctx.store.reserve(id);
      expect(second.reservation.lockId).toBe(first.reservation.lockId);
      expect(second.reservation.uuid).not.toBe(first.reservation.uuid);
      // the old handle is fenced off even though its lock id is the same
      expect((await rejection(first.setStatus(Status.FAILED))).code).toBe('FATE_NOT_RESERVED');
      expect((await ctx.store.read(id)).status).toBe(Status.NEW);
    });
  });
}
