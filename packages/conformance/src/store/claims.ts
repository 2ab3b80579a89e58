import { randomUUID } from 'node:crypto';
import {
  createFatesStore,
  type FateId,
  type FatesStore,
  type Reservation,
  Status,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import { FaultyBackend } from '../faults/faulty-backend.js';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit, rejection, step, useFixture, withBackend } from './context.js';

/** Enough injected faults to outlast every repeat the guard makes of one call. */
export const ALWAYS = 10;

export const sorted = (ids: readonly string[]) => [...ids].sort();
export const slots = (lockId: string, n: number): Reservation[] =>
  Array.from({ length: n }, () => ({ lockId, uuid: randomUUID() }));

/** Seeds `n` one-step transactions; their ids, sorted. */
export async function seeded(store: FatesStore, n: number): Promise<FateId[]> {
  const results = await store.seedMany(
    Array.from({ length: n }, (_, i) => ({ step: step('s', i), opName: 'op' })),
  );
  return sorted(results.map((r) => r.id)) as FateId[];
}

/** Issue 23: claiming many runnable transactions in one call (`claimRunnable`, `claimMany`). */
export function claimTests(target: ConformanceTarget): void {
  describe('claiming many', () => {
    const ctx = useFixture(target);

    it('claims the lowest runnable ids, each reserved and started under its own reservation', async () => {
      const ids = await seeded(ctx.store, 5);
      const { claimed, refused } = await ctx.store.claimRunnable(undefined, { limit: 3 });
      expect(refused).toEqual([]);
      expect(claimed.map((h) => h.id)).toEqual(ids.slice(0, 3));
      expect(new Set(claimed.map((h) => h.reservation.uuid)).size).toBe(3);
      for (const h of claimed) {
        expect(h.startedNow).toBe(true);
        expect(h.reservation.lockId).toBe(ctx.store.lockId);
        expect(await h.getStatus()).toBe(Status.IN_PROGRESS);
        const stored = await ctx.store.read(h.id);
        expect(stored.status).toBe(Status.IN_PROGRESS);
        expect(stored.reservation).toEqual(h.reservation);
      }
      expect((await ctx.store.scanRunnable()).ids).toEqual(ids.slice(3));
      // released before any call began, each goes back to SUBMITTED, runnable again
      for (const h of claimed) {
        await h.commit([{ op: 'setStatus', status: Status.SUBMITTED }, { op: 'unreserve' }]);
      }
      expect((await ctx.store.scanRunnable()).ids).toEqual(ids);
    });

    it('never claims reserved, deferred, finished or NEW records, nor ids outside the range', async () => {
      const [reserved, deferred, finished, failing, plain] = await seeded(ctx.store, 5);
      const fresh = await ctx.store.create(); // NEW: not runnable
      const other = await ctx.client();
      const held = await other.tryReserve(reserved as FateId);
      const d = await other.tryReserve(deferred as FateId);
      await d?.unreserve(60_000);
      const f = await other.tryReserve(finished as FateId);
      await f?.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
      const r = await other.tryReserve(failing as FateId);
      await r?.commit([
        { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
        { op: 'unreserve' },
      ]);
      const { claimed } = await ctx.store.claimRunnable(undefined, { limit: 10 });
      expect(sorted(claimed.map((h) => h.id))).toEqual(sorted([failing, plain] as string[]));
      const failed = claimed.find((h) => h.id === failing);
      expect(await failed?.getStatus()).toBe(Status.FAILED_IN_PROGRESS);
      expect(failed?.startedNow).toBe(false);
      expect((await ctx.store.read(failing as FateId)).status).toBe(Status.FAILED_IN_PROGRESS);
      expect(held?.isReserved).toBe(true);
      expect((await ctx.store.read(fresh)).reservation ?? null).toBeNull();
      // a range holding none of them claims nothing
      for (const h of claimed) await h.unreserve();
      const lowest = sorted([failing, plain] as string[])[0] as string;
      const range = { start: '0', end: lowest };
      const inRange = (await ctx.store.claimRunnable(range, { limit: 10 })).claimed;
      expect(inRange.map((h) => h.id)).toEqual([]);
      const upTo = { end: `${lowest}0` };
      expect((await ctx.store.claimRunnable(upTo, { limit: 10 })).claimed.map((h) => h.id)).toEqual(
        [lowest],
      );
    });

    it('fences each claimed record on its own reservation', async ({ skip }) => {
      await withBackend(ctx.fixture, async (backend) => {
        if (typeof backend.claimMany !== 'function') return skip();
        const ids = await seeded(ctx.store, 2);
        const rs = slots('w1@claims', 2);
        const got = await backend.claimMany(undefined, rs);
        expect(got.map((c) => c.id)).toEqual(ids);
        expect(got.map((c) => c.op)).toEqual(['op', 'op']);
        expect(got.map((c) => c.record.status)).toEqual([Status.SUBMITTED, Status.SUBMITTED]);
        expect(got.map((c) => c.record.reservation)).toEqual(rs);
        const [a, b] = ids as [FateId, FateId];
        const [ra, rb] = rs as [Reservation, Reservation];
        expect(await backend.write(a, rb, { status: Status.FAILED })).toBe(false);
        expect(await backend.write(b, ra, { release: { deferMs: 0 } })).toBe(false);
        expect(await backend.clearReservation(a, rb)).toBe(false);
        expect(await backend.tryReserve(a, { lockId: 'w2@other', uuid: randomUUID() })).toBe(
          'held',
        );
        expect(await backend.write(a, ra, { status: Status.SUCCESSFUL })).toBe(true);
        expect(await backend.write(b, rb, { release: { deferMs: 0 } })).toBe(true);
        expect((await backend.read(a))?.status).toBe(Status.SUCCESSFUL);
        expect(await backend.read(b)).toMatchObject({
          status: Status.IN_PROGRESS,
          reservation: null,
        });
      });
    });

    it('answers what it took when repeated with the same reservations, and claims nothing more', async ({
      skip,
    }) => {
      await withBackend(ctx.fixture, async (backend) => {
        if (typeof backend.claimMany !== 'function') return skip();
        const ids = await seeded(ctx.store, 5);
        const rs = slots('w1@claims', 3);
        const first = await backend.claimMany(undefined, rs);
        const again = await backend.claimMany(undefined, rs);
        expect(sorted(again.map((c) => c.id))).toEqual(ids.slice(0, 3));
        for (const c of again) {
          // as stored now: started, "may have run"
          expect(c.record.status).toBe(Status.IN_PROGRESS);
          const was = first.find((f) => f.id === c.id);
          expect(c.record.reservation).toEqual(was?.record.reservation);
        }
        expect(sorted((await backend.scanRunnable(undefined, 10)).ids)).toEqual(ids.slice(3));
      });
    });

    it('never claims one id for two of several concurrent claiming clients', async () => {
      const ids = await seeded(ctx.store, 120);
      const clients = [ctx.store, ...(await Promise.all([1, 2, 3].map(() => ctx.client())))];
      const got: string[] = [];
      const owners = new Map<string, string>();
      await mapLimit(clients, 4, async (c) => {
        // bounded: a backend that claims the same ids again must fail here, not loop
        for (let empty = 0, calls = 0; empty < 3 && calls < 60 && got.length <= 120; calls++) {
          const { claimed } = await c.claimRunnable(undefined, { limit: 7 });
          if (claimed.length === 0) empty++;
          for (const h of claimed) {
            got.push(h.id);
            owners.set(h.id, h.reservation.uuid);
          }
        }
      });
      expect(got).toHaveLength(120);
      expect(sorted(got)).toEqual(ids);
      const held = await ctx.store.reservations();
      expect(held.map((h) => h.reservation.uuid).sort()).toEqual([...owners.values()].sort());
    });

    it('takes what a claim whose reply was lost took, when it asks again', async () => {
      const { store, faults } = await ctx.faultyClient();
      const ids = await seeded(ctx.store, 5);
      faults.inject('lose-reply', 'claimMany');
      faults.inject('lose-reply', 'tryReserve'); // the fallback's own lost reply
      const { claimed } = await store.claimRunnable(undefined, { limit: 3 });
      const mine = claimed.map((h) => h.id);
      expect(mine.length).toBeGreaterThan(0);
      expect(sorted(mine)).toEqual(ids.slice(0, mine.length));
      // nothing is held but what the handles hold, and each handle can write
      const held = await ctx.store.reservations();
      expect(sorted(held.map((h) => h.reservation.uuid))).toEqual(
        sorted(claimed.map((h) => h.reservation.uuid)),
      );
      for (const h of claimed) await h.unreserve();
      expect(await ctx.store.reservations()).toEqual([]);
      expect(sorted((await ctx.store.scanRunnable()).ids)).toEqual(ids);
    });

    it('clears by itself what a claim took when its outcome stays unknown', async () => {
      const { store, faults } = await ctx.faultyClient();
      await store.registerInstance();
      const ids = await seeded(ctx.store, 4);
      faults.inject('lose-reply', 'claimMany', ALWAYS);
      faults.inject('lose-reply', 'tryReserve', ALWAYS * 4);
      expect((await rejection(store.claimRunnable(undefined, { limit: 3 }))).code).toBe(
        'FATE_STORE_UNAVAILABLE',
      );
      // stored under a live client's name: only that client can clear it, and it does
      await eventually(
        'the unknown claims are cleared',
        async () => (await ctx.store.reservations()).length === 0,
        8_000,
      );
      faults.heal();
      expect(
        sorted((await store.claimRunnable(undefined, { limit: 10 })).claimed.map((h) => h.id)),
      ).toEqual(ids);
    });

    it('claims one by one through the guard when the backend cannot claim many', async () => {
      const faults = new FaultyBackend(ctx.fixture.backend());
      // an own property hides the wrapper's getter: this backend cannot claim many
      Object.defineProperty(faults, 'claimMany', { value: undefined });
      const store = await createFatesStore(faults);
      try {
        expect(store.batchedClaims).toBe(false);
        const ids = await seeded(ctx.store, 4);
        const { claimed } = await store.claimRunnable(undefined, { limit: 3 });
        expect(claimed.map((h) => h.id)).toEqual(ids.slice(0, 3));
        expect(claimed.every((h) => h.startedNow)).toBe(true);
        expect(faults.calls.get('tryReserve')).toBe(3);
      } finally {
        await store.close();
      }
    });

    it('refuses a bad limit or range with FATE_INVALID_ARGUMENT and claims nothing', async () => {
      await seeded(ctx.store, 2);
      for (const limit of [0, -1, 1.5, 1_001, Number.NaN]) {
        expect((await rejection(ctx.store.claimRunnable(undefined, { limit }))).code).toBe(
          'FATE_INVALID_ARGUMENT',
        );
      }
      const bad = { start: 'ZZ' };
      expect((await rejection(ctx.store.claimRunnable(bad, { limit: 1 }))).code).toBe(
        'FATE_INVALID_ARGUMENT',
      );
      expect(await ctx.store.reservations()).toEqual([]);
    });
  });
}
