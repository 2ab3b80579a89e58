import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, step, useFixture } from './context.js';

const TIMEOUT = 300;

export function hygieneTests(target: ConformanceTarget): void {
  describe('store hygiene', () => {
    const ctx = useFixture(target);

    it('holds only its skeleton once every transaction is gone and every client expired', async () => {
      const store = await ctx.client({ livenessTimeoutMs: TIMEOUT });
      await store.registerInstance();
      const seeded = await store.seedMany(
        Array.from({ length: 60 }, (_, i) => ({ step: step('s', i), opName: 'op' })),
      );
      const empty = await store.create();
      // finished and deleted, deferred, failed and kept, left in progress…
      for (const [i, { id }] of seeded.entries()) {
        const h = await store.reserve(id);
        if (i % 4 === 0)
          await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'delete' }]);
        else if (i % 4 === 1) await h.unreserve(60_000);
        else if (i % 4 === 2)
          await h.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'unreserve' }]);
        else await h.commit([{ op: 'setStatus', status: Status.IN_PROGRESS }, { op: 'unreserve' }]);
      }
      // …and a client that dies holding one: no heartbeat, no close
      const crashed = await ctx.client({ livenessTimeoutMs: TIMEOUT });
      await crashed.registerInstance();
      await crashed.reserve(empty);
      await eventually(
        "the crashed client's reservation is cleared",
        async () => (await store.clearDeadReservations()).some((c) => c.id === empty),
        5_000,
      );
      // everything that is left is deleted, whatever its status
      for (const t of await store.list()) await store.forceDelete(t.id, { timeoutMs: 5_000 });
      expect(await store.list()).toEqual([]);
      await store.close();
      // liveness records expire three timeouts after their last write; reading them lets
      // a backend that forgets on read do so
      const reader = await ctx.client({ livenessTimeoutMs: TIMEOUT });
      await eventually(
        'the liveness records expired',
        async () => (await reader.instanceRecords()).length === 0,
        5_000,
      );
      await reader.scanRunnable(); // scans repair what indexes point at nothing
      await reader.reservations();
      expect(await ctx.fixture.leftovers()).toEqual([]);
    });
  });
}
