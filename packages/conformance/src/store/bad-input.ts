import { newFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { clearedWhenDead, rejection, step, useFixture } from './context.js';

const MALFORMED = [
  '',
  'not-an-id',
  '123',
  'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1',
  'a0eebc999c0b4ef8bb6d6bb9bd380a11',
  undefined,
  42,
];

export function badInputTests(target: ConformanceTarget): void {
  describe('bad input', () => {
    const ctx = useFixture(target);

    it('refuses malformed ids with a TypeError everywhere', async () => {
      for (const bad of MALFORMED) {
        for (const call of [
          () => ctx.store.read(bad as never),
          () => ctx.store.tryReserve(bad as never),
          () => ctx.store.reserve(bad as never),
        ]) {
          const err = await rejection(call());
          expect(err, String(bad)).toBeInstanceOf(TypeError);
          expect(err.code).toBe('FATE_INVALID_ARGUMENT');
        }
      }
    });

    it('refuses an empty commit with FATE_INVALID_ARGUMENT and writes nothing', async () => {
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await ctx.store.reserve(id);
      const before = await ctx.store.read(id);
      expect((await rejection(h.commit([]))).code).toBe('FATE_INVALID_ARGUMENT');
      expect((await rejection(h.commit(undefined as never))).code).toBe('FATE_INVALID_ARGUMENT');
      expect(await ctx.store.read(id)).toEqual(before);
      await h.setStatus(Status.IN_PROGRESS); // the handle is still usable
    });

    it("refresh() is true while the reservation is the handle's, false once it ended; abandon() ends the handle", async () => {
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await ctx.store.reserve(id);
      expect(await h.refresh()).toBe(true);
      await h.setStatus(Status.IN_PROGRESS); // still usable after a refresh
      await h.unreserve();
      expect(await h.refresh()).toBe(false);
      const again = await ctx.store.reserve(id);
      again.abandon();
      expect(again.isReserved).toBe(false);
      // its reservation is still stored, but the handle never takes it back
      expect((await ctx.store.read(id)).reservation).toEqual(again.reservation);
      expect(await again.refresh()).toBe(false);
      expect(again.isReserved).toBe(false);
    });

    it('refresh() is false for a holder whose reservation was cleared as dead', async () => {
      const stale = await ctx.client({ livenessTimeoutMs: 300 });
      await stale.registerInstance();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op' });
      const h = await stale.reserve(id);
      // the holder stops heartbeating, as a crashed or partitioned process would
      expect(await clearedWhenDead(ctx.store, stale)).toEqual([id]);
      expect(await h.refresh()).toBe(false);
      expect(h.isReserved).toBe(false);
    });

    it('refuses a payload over the declared limit with FATE_PAYLOAD_TOO_LARGE and keeps the transaction', async () => {
      const limit = ctx.store.capabilities.maxRecordBytes;
      const huge = 'x'.repeat(limit + 1);
      expect(
        (await rejection(ctx.store.seed({ step: step('big', huge), opName: 'op' }))).code,
      ).toBe('FATE_PAYLOAD_TOO_LARGE');
      expect(await ctx.store.list()).toEqual([]);
      const { id } = await ctx.store.seed({ step: step('small'), opName: 'op' });
      const h = await ctx.store.reserve(id);
      await h.setStatus(Status.IN_PROGRESS);
      const before = await ctx.store.read(id);
      expect((await rejection(h.push(step('big', huge)))).code).toBe('FATE_PAYLOAD_TOO_LARGE');
      expect((await rejection(h.setInfo('returnValue', huge))).code).toBe('FATE_PAYLOAD_TOO_LARGE');
      expect(await ctx.store.read(id)).toEqual(before);
      // a value that just fits is stored
      const fits = 'y'.repeat(Math.floor(limit / 2));
      await h.push(step('fits', fits));
      expect((await ctx.store.read(id)).stack).toHaveLength(2);
    });

    it.each(['status', 'stack', 'info'] as const)(
      'reports corrupt stored %s as FATE_CORRUPT_DATA and changes nothing else',
      async (field) => {
        const bad = await ctx.store.seed({ step: step(), opName: 'op' });
        const good = await ctx.store.seed({ step: step(), opName: 'op' });
        await ctx.fixture.corrupt(bad.id, field);
        expect((await rejection(ctx.store.read(bad.id))).code).toBe('FATE_CORRUPT_DATA');
        expect((await ctx.store.read(good.id)).status).toBe(Status.SUBMITTED);
        const listed = await ctx.store.list();
        expect(listed.find((s) => s.id === bad.id)?.corrupt).toBeTruthy();
        expect(listed.find((s) => s.id === good.id)?.corrupt).toBeUndefined();
        if (field === 'status') {
          expect((await rejection(ctx.store.tryReserve(bad.id))).code).toBe('FATE_CORRUPT_DATA');
          expect(await ctx.store.reservations()).toEqual([]);
          // no handle can be made for it, but an admin can still remove it
          await ctx.store.forceDelete(bad.id);
          expect((await ctx.store.read(bad.id)).status).toBe(Status.UNKNOWN);
          expect((await ctx.store.list()).map((s) => s.id)).toEqual([good.id]);
        } else {
          // the holder can still end a transaction whose data it cannot read
          const h = await ctx.store.reserve(bad.id);
          const read = field === 'stack' ? () => h.top() : () => h.getInfo('opName');
          expect((await rejection(read())).code).toBe('FATE_CORRUPT_DATA');
          await h.setStatus(Status.FAILED);
          await h.delete();
          expect((await ctx.store.read(bad.id)).status).toBe(Status.UNKNOWN);
        }
        expect((await ctx.store.read(good.id)).status).toBe(Status.SUBMITTED);
      },
    );

    it('refuses malformed steps, seeds and statuses with a TypeError and stores nothing', async () => {
      const badSeeds = [
        { step: { state: 1 }, opName: 'op' },
        { step: { type: '', state: 1 }, opName: 'op' },
        { step: { type: 'x', state: 10n }, opName: 'op' },
        { step: step(), opName: '' },
        { step: step(), opName: 'op', autoClean: 'yes' },
        { step: step(), opName: 'op', key: { type: '', key: 'k' } },
      ];
      for (const request of badSeeds) {
        const err = await rejection(ctx.store.seed(request as never));
        expect(
          err,
          JSON.stringify(request, (_k, v) => (typeof v === 'bigint' ? 'bigint' : v)),
        ).toBeInstanceOf(TypeError);
      }
      expect(await ctx.store.list()).toEqual([]);
      const h = await ctx.store.reserve(await ctx.store.create());
      expect(await rejection(h.setStatus(Status.UNKNOWN))).toBeInstanceOf(TypeError);
      expect(await rejection(h.setStatus('DONE' as never))).toBeInstanceOf(TypeError);
      expect(await rejection(h.push({ type: 'x' } as never))).toBeInstanceOf(TypeError);
      expect(await rejection(ctx.store.list({ statuses: ['NOPE' as never] }))).toBeInstanceOf(
        TypeError,
      );
      expect(await h.getStatus()).toBe(Status.NEW);
    });

    it('throws FATE_CLOSED after close, and closing twice is fine', async () => {
      const c = await ctx.client();
      await c.close();
      await c.close();
      expect((await rejection(c.read(newFateId()))).code).toBe('FATE_CLOSED');
      expect((await rejection(c.create())).code).toBe('FATE_CLOSED');
    });
  });
}
