import { keyedFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';

/**
 * Held seeding (issue 25): a seed stored NEW, which no scan names until a reservation sets
 * it SUBMITTED. Schedules seed their due transactions this way (and submit them only after
 * their own fenced write), and the engine's own records (schedules, slots) stay held.
 */
export function heldTests(target: ConformanceTarget): void {
  describe('held seeding', () => {
    const ctx = useFixture(target);
    const key = { type: 'fate:scheduled', key: 'nightly@2026-01-01T00:00:00.000Z' };

    it('stores a held seed NEW with its step and internal info, and no scan names it', async () => {
      const internal = { kind: 'slot', op: 'charge', index: 3 };
      const held = await ctx.store.seed({
        step: step('a'),
        opName: 'op',
        key,
        held: true,
        internal,
      });
      expect(held).toEqual({ id: keyedFateId(key), created: true });
      const view = await ctx.store.read(held.id);
      expect(view.status).toBe(Status.NEW);
      expect(view.stack).toEqual([step('a')]);
      expect(view.info.internal).toEqual(internal);
      const other = await ctx.client();
      expect((await other.scanRunnable()).ids).toEqual([]);
      // the key dedups against a held record as against any other
      expect(await other.seed({ step: step('b'), opName: 'op', key })).toEqual({
        id: held.id,
        created: false,
      });
    });

    it('makes a held seed runnable for every client once a reservation submits it', async () => {
      const { id } = await ctx.store.seed({ step: step('a'), opName: 'op', key, held: true });
      const h = await ctx.store.reserve(id);
      expect(await h.getStatus()).toBe(Status.NEW);
      await h.commit([{ op: 'setStatus', status: Status.SUBMITTED }, { op: 'unreserve' }]);
      const other = await ctx.client();
      const scan = await other.scanRunnable();
      expect(scan.ids).toEqual([id]);
      expect(scan.ops).toEqual(['op']);
      expect((await other.read(id)).stack).toEqual([step('a')]);
    });

    it('keeps a held seed in many held (one round trip) with the others submitted', async () => {
      const results = await ctx.store.seedMany([
        { step: step('a'), opName: 'op', key, held: true },
        { step: step('b'), opName: 'op' },
      ]);
      expect(results.map((r) => r.created)).toEqual([true, true]);
      expect((await ctx.store.read(keyedFateId(key))).status).toBe(Status.NEW);
      expect((await ctx.store.scanRunnable()).ids).toEqual([results[1]?.id]);
    });
  });
}
