import { setTimeout as sleep } from 'node:timers/promises';
import { type FateId, type FatesStore, inRange, partitionRange } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, step, useFixture } from '../store/context.js';

const sweep = { sweepStrays: true } as const;

/**
 * Clearing dead holders outside a cleaner's own share (`sweepStrays`): a stray is swept
 * only once its share's owner let it be, only when asked, and never for work it took after
 * it came back. Part of the group `cleaningTests` opens (the same describe title).
 */
export function straySweepTests(target: ConformanceTarget): void {
  describe('faults: clearing dead holders', () => {
    const ctx = useFixture(target);

    it("sweeps a dead holder's reservations outside its share once the share's owner let them be", async () => {
      // the cleaner's share is the lower half; the holder's transaction lies in the upper
      // half, whose owner (dead too, or just started) never clears it
      const lower = partitionRange({ partition: 0, total: 2 });
      const holder = await ctx.client({ livenessTimeoutMs: 800 });
      await holder.registerInstance();
      let id: FateId | undefined;
      for (let i = 0; i < 64 && id === undefined; i++) {
        const seeded = (await ctx.store.seed({ step: step(), opName: 'op' })).id;
        if (!inRange(seeded, lower)) id = seeded;
      }
      if (id === undefined) throw new Error('64 random ids all fell in the lower half');
      await holder.reserve(id); // then it stops heartbeating, as a killed process would
      const watchingSince = performance.now();
      expect(await ctx.store.clearDeadReservations(lower, sweep), 'cleared at once').toEqual([]);
      let cleared: FateId[] = [];
      await eventually(
        'the holder is swept from outside the share',
        async () => {
          cleared = (await ctx.store.clearDeadReservations(lower, sweep)).map((c) => c.id);
          return cleared.length > 0;
        },
        5_000,
      );
      expect(cleared).toEqual([id]);
      // judged dead after its 800 ms timeout, swept only half a timeout after that
      expect(performance.now() - watchingSince).toBeGreaterThanOrEqual(1_200);
      expect((await ctx.store.scanRunnable()).ids).toContain(id);
      expect(await ctx.store.clearDeadReservations(lower, sweep), 'swept once').toEqual([]);
    });

    it('sweeps strays only when asked: an admin clearing one id sweeps nothing else', async () => {
      const holder = await ctx.client({ livenessTimeoutMs: 400 });
      await holder.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const { id: other } = await ctx.store.seed({ step: step(), opName: 'op' });
      await holder.reserve(other); // then it dies
      const only = { start: id, end: `${id}~` };
      const since = performance.now();
      while (performance.now() - since < 1_000) {
        expect(await ctx.store.clearDeadReservations(only)).toEqual([]);
        await sleep(100);
      }
      expect((await ctx.store.read(other)).reservation?.lockId).toBe(holder.lockId);
    });

    it('never sweeps work a stray took after it came back, however slow the listing', async () => {
      // The holder goes silent long enough to be swept as a stray, then comes back (a healed
      // partition) and reserves new work while the sweeper's liveness read is on its way.
      // That reservation must survive: the sweeper lists before it judges.
      const timeout = 500; // heartbeats every 100 ms
      const { store: sweeper, faults } = await ctx.faultyClient({ livenessTimeoutMs: timeout });
      const holder = await ctx.client({ livenessTimeoutMs: timeout });
      await holder.registerInstance();
      await sweeper.registerInstance();
      const lower = partitionRange({ partition: 0, total: 2 });
      const { id: old } = await ctx.store.seed({ step: step(), opName: 'op' });
      const { id: fresh } = await ctx.store.seed({ step: step(), opName: 'op' });
      await holder.reserve(old); // then it goes silent
      await untilStray(sweeper, holder.lockId, timeout);
      faults.after('instances', async () => {
        await holder.heartbeat(); // back: its lease runs again from here
        await holder.reserve(fresh);
      });
      await sweeper.clearDeadReservations(lower, sweep);
      expect((await ctx.store.read(fresh)).reservation?.lockId, 'its new work').toBe(holder.lockId);
    });

    it('never sweeps a stray that renewed between the listing and the judging', async () => {
      // The holder looks like a stray, its reservation is listed, and then it renews before
      // the liveness read that judges it: that read sees it live, so what was listed stays
      // (found by Stryker: without the re-check a holder back from a pause lost work it
      // still ran).
      const timeout = 500;
      const { store: sweeper, faults } = await ctx.faultyClient({ livenessTimeoutMs: timeout });
      const holder = await ctx.client({ livenessTimeoutMs: timeout });
      await holder.registerInstance();
      await sweeper.registerInstance();
      const lower = partitionRange({ partition: 0, total: 2 });
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      await holder.reserve(id); // then it goes silent
      await untilStray(sweeper, holder.lockId, timeout);
      // after the share's listing, before the strays' listing and the judging read
      faults.after('reservations', async () => {
        await holder.heartbeat();
      });
      expect(await sweeper.clearDeadReservations(lower, sweep)).toEqual([]);
      expect((await ctx.store.read(id)).reservation?.lockId, 'its work').toBe(holder.lockId);
    });
  });
}

/**
 * Watches `lockId` from `sweeper` until it is a stray: observations a fifth of a timeout
 * apart count as continuous, so the holder lapses, and half a timeout after that it is a
 * stray (a slow observation starts the watch afresh). At most 10 s.
 */
async function untilStray(sweeper: FatesStore, lockId: string, timeout: number): Promise<void> {
  const deadline = performance.now() + 10_000;
  let lapsedSince: number | undefined;
  while (lapsedSince === undefined || performance.now() - lapsedSince < 0.8 * timeout) {
    if (performance.now() > deadline) throw new Error('the holder never looked lapsed');
    if (await sweeper.isAlive(lockId)) lapsedSince = undefined;
    else lapsedSince ??= performance.now();
    await sleep(timeout / 5);
  }
}
