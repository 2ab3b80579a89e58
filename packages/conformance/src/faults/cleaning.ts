import { setTimeout as sleep } from 'node:timers/promises';
import { type FateId, type FatesStore, newFateId, type Reservation, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, step, useFixture } from '../store/context.js';

/** Heartbeats `store` every `everyMs` until the returned function is called. */
function keepAlive(store: FatesStore, everyMs: number): () => void {
  const timer = setInterval(() => void store.heartbeat().catch(() => undefined), everyMs);
  return () => clearInterval(timer);
}

export function cleaningTests(target: ConformanceTarget): void {
  describe('faults: clearing dead holders', () => {
    const ctx = useFixture(target);

    it('fences on the whole reservation: the same lock id with another uuid changes nothing', async () => {
      const backend = ctx.fixture.backend();
      await backend.open();
      try {
        const id = newFateId();
        const record = { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' };
        expect(await backend.insert(id, record)).toBe(true);
        const mine: Reservation = { lockId: 'w1@aaaa', uuid: 'u-1' };
        const stale: Reservation = { lockId: 'w1@aaaa', uuid: 'u-2' };
        expect(await backend.tryReserve(id, mine)).toMatchObject({ reservation: mine });
        expect(await backend.tryReserve(id, stale)).toBe('held');
        expect(await backend.write(id, stale, { status: Status.FAILED })).toBe(false);
        expect(await backend.write(id, stale, { release: { deferMs: 0 } })).toBe(false);
        expect(await backend.write(id, stale, { delete: true })).toBe(false);
        expect(await backend.clearReservation(id, stale)).toBe(false);
        const otherLock: Reservation = { lockId: 'w2@bbbb', uuid: 'u-1' };
        expect(await backend.clearReservation(id, otherLock)).toBe(false);
        expect(await backend.write(id, otherLock, { status: Status.FAILED })).toBe(false);
        expect(await backend.read(id)).toEqual({
          status: Status.SUBMITTED,
          stack: '[]',
          info: '{}',
          reservation: mine,
          deferUntil: 0,
        });
        expect(await backend.clearReservation(id, mine)).toBe(true);
        expect((await backend.read(id))?.reservation).toBeNull();
      } finally {
        await backend.close();
      }
    });

    it('never clears a holder that registered and reserved while the cleaner was looking', async () => {
      const { store: cleaner, faults } = await ctx.faultyClient();
      const newcomer = await ctx.client({ livenessTimeoutMs: 5_000 });
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      let reserved: FateId | undefined;
      const arrive = async () => {
        if (reserved) return;
        await newcomer.registerInstance();
        reserved = (await newcomer.reserve(id)).id;
      };
      // between the cleaner's two reads (liveness and reservations, in either order)
      faults.after('instances', arrive);
      faults.after('reservations', arrive);
      expect(await cleaner.clearDeadReservations()).toEqual([]);
      expect(reserved).toBe(id);
      expect((await ctx.store.read(id)).reservation?.lockId).toBe(newcomer.lockId);
    });

    it('does not clear holders that could not renew because the store was away', async () => {
      const timeout = 500; // heartbeats every 100 ms
      const { store: holder, faults: holderFaults } = await ctx.faultyClient({
        livenessTimeoutMs: timeout,
      });
      const { store: cleaner, faults: cleanerFaults } = await ctx.faultyClient({
        livenessTimeoutMs: timeout,
      });
      await holder.registerInstance();
      await cleaner.registerInstance();
      const stopHolder = keepAlive(holder, 100);
      const stopCleaner = keepAlive(cleaner, 100);
      try {
        const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
        const h = await holder.reserve(id);
        const cleared: FateId[] = [];
        const sweep = async () => {
          for (const c of await cleaner.clearDeadReservations().catch(() => [])) cleared.push(c.id);
        };
        await sweep();
        // the store is away for 2.5 timeouts, for everyone; the holder gets it back 2.5
        // heartbeats after the cleaner (clients reconnect one by one), so the cleaner
        // always looks before the holder could renew
        const away = 2.5 * timeout;
        holderFaults.outage(away + 250);
        cleanerFaults.outage(away);
        const until = performance.now() + away + 250 + 2 * timeout;
        while (performance.now() < until) {
          await sweep();
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(cleared).toEqual([]);
        await h.setStatus(Status.IN_PROGRESS); // still ours
      } finally {
        stopHolder();
        stopCleaner();
      }
    });

    // In one process all clocks agree, so "its expiry passed" and "watched it for a whole
    // timeout" cannot differ; a holder whose clock is off makes them differ.
    it.each([0, 30_000, -5_000])(
      'clears a holder only after watching it not renew for its whole timeout, its clock off by %i ms',
      async (skewMs) => {
        const { store: holder, faults } = await ctx.faultyClient({ livenessTimeoutMs: 800 });
        faults.skewClock(skewMs);
        await holder.registerInstance();
        const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
        await holder.reserve(id); // then it stops heartbeating, as a frozen process would
        const watchingSince = performance.now();
        expect(await ctx.store.clearDeadReservations(), 'cleared at once').toEqual([]);
        await eventually(
          'the holder is cleared',
          async () => (await ctx.store.clearDeadReservations()).length > 0,
          5_000,
        );
        expect(performance.now() - watchingSince).toBeGreaterThanOrEqual(750);
        expect((await ctx.store.scanRunnable()).ids).toEqual([id]);
      },
    );

    it('clears a dead predecessor under the same instance id while its successor lives', async () => {
      const before = await ctx.client({ instanceId: 'w1', livenessTimeoutMs: 500 });
      await before.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      await before.reserve(id); // then the process dies: no heartbeat, no release
      const after = await ctx.client({ instanceId: 'w1', livenessTimeoutMs: 500 });
      await after.registerInstance();
      const stop = keepAlive(after, 100);
      try {
        await eventually(
          "the predecessor's reservation is cleared",
          async () => (await ctx.store.clearDeadReservations()).length > 0,
          5_000,
        );
        expect(await after.tryReserve(id)).toBeDefined();
      } finally {
        stop();
      }
    });

    it('judges a holder by what its liveness read showed, however late the reply came', async () => {
      const timeout = 2_000; // the margins below are a tenth of it
      const { store: cleaner, faults } = await ctx.faultyClient({ livenessTimeoutMs: timeout });
      const holder = await ctx.client({ livenessTimeoutMs: timeout });
      await holder.registerInstance();
      await cleaner.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      await holder.reserve(id);
      expect(await cleaner.clearDeadReservations()).toEqual([]); // watching the holder from now
      const since = performance.now();
      const until = (at: number) => sleep(Math.max(0, since + at * timeout - performance.now()));
      await until(0.375); // observations a third of a timeout apart: they count as continuous
      await cleaner.liveInstances();
      await until(0.75);
      await cleaner.liveInstances();
      // The cleaner reads liveness at 0.75 timeout; the holder beats right after that read,
      // and the reply reaches the cleaner at 1.15 timeout: past the timeout since it first
      // saw the holder, but what it read was only 0.75 timeout old.
      faults.after('instances', async () => {
        await holder.heartbeat();
        await until(1.15);
      });
      expect(await cleaner.clearDeadReservations()).toEqual([]);
      expect((await ctx.store.read(id)).reservation?.lockId).toBe(holder.lockId);
    });

    it('keeps plain clients out of membership: only engines have a group', async () => {
      const plain = await ctx.client();
      const engine = await ctx.client();
      await plain.registerInstance();
      await engine.registerInstance({ group: 'workers' });
      const live = await ctx.store.liveInstances();
      // what the store held, to say why when the engine is missing (seen once on a
      // ZooKeeper ensemble in CI, never reproduced in 300 tries here)
      const seen = JSON.stringify({ live, records: await ctx.store.instanceRecords() });
      expect(live.find((i) => i.lockId === plain.lockId)?.group, seen).toBeUndefined();
      expect(live.find((i) => i.lockId === engine.lockId)?.group, seen).toBe('workers');
    });
  });
}
