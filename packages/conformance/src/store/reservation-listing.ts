import type { FateId } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { mapLimit, useFixture } from './context.js';

export function reservationListingTests(target: ConformanceTarget): void {
  describe('listing reservations', () => {
    const ctx = useFixture(target);

    it('lists every reservation in id order, and exactly those of a range (start inclusive, end exclusive)', async () => {
      const other = await ctx.client();
      const ids = (await mapLimit(Array.from({ length: 10 }), 10, () => ctx.store.create())).sort();
      const holders = new Map<FateId, string>();
      for (const [i, id] of ids.entries()) {
        const h = await (i % 2 ? other : ctx.store).reserve(id);
        holders.set(id, h.reservation.uuid);
      }
      const listed = async (range?: { start?: string; end?: string }) => {
        const got = await ctx.store.reservations(range);
        for (const { id, reservation } of got) expect(reservation.uuid).toBe(holders.get(id));
        return got.map((r) => r.id);
      };
      expect(await listed()).toEqual(ids);
      expect(await listed({ start: ids[2], end: ids[7] })).toEqual(ids.slice(2, 7));
      expect(await listed({ start: ids[5] })).toEqual(ids.slice(5));
      expect(await listed({ end: ids[3] })).toEqual(ids.slice(0, 3));
    });
  });
}
