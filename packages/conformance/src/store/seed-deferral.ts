import { type FateId, keyedFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, rejection, step, useFixture, withBackend } from './context.js';

const DELAY_MS = 800;

/** Seeds deferred at insert (`delayMs`, `runAt`): judged by the store's clock, like every deferral. */
export function seedDeferralTests(target: ConformanceTarget): void {
  describe('deferred seeds (runAt / delayMs)', () => {
    const ctx = useFixture(target);

    it('hides a seed deferred at insert from the scans of every client until it is due', async () => {
      const other = await ctx.client();
      const before = ctx.store.now();
      const { id } = await ctx.store.seed({ step: step(), opName: 'op', delayMs: DELAY_MS });
      const { id: now } = await ctx.store.seed({ step: step(), opName: 'op' });
      const view = await other.read(id);
      expect(view.status).toBe(Status.SUBMITTED);
      expect(view.deferUntil).toBeGreaterThanOrEqual(before + DELAY_MS - 50);
      for (const c of [ctx.store, other]) {
        const scan = await c.scanRunnable();
        expect(scan.ids).toEqual([now]);
        expect(scan.nextDeferralAt).toBe(view.deferUntil);
      }
      await eventually(
        'the seed is due',
        async () => (await other.scanRunnable()).ids.includes(id),
        DELAY_MS + 5_000,
      );
      expect(other.now()).toBeGreaterThanOrEqual(view.deferUntil - 50);
    });

    it('defers each seed of a seedMany by its own delay, and a runAt already past not at all', async () => {
      const [late, past, plain] = await ctx.store.seedMany([
        { step: step('a'), opName: 'op', runAt: ctx.store.now() + 60_000 },
        { step: step('b'), opName: 'op', runAt: new Date(ctx.store.now() - 60_000) },
        { step: step('c'), opName: 'op' },
      ]);
      const scan = await ctx.store.scanRunnable();
      expect(scan.ids.sort()).toEqual([past?.id, plain?.id].sort());
      const deferUntil = (await ctx.store.read(late?.id as FateId)).deferUntil;
      expect(deferUntil).toBeGreaterThan(ctx.store.now() + 55_000);
      expect(scan.nextDeferralAt).toBe(deferUntil);
      // deferral only steers work finders: a SUBMITTED seed can still be cancelled
      const h = await ctx.store.reserve(late?.id as FateId);
      await h.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'unreserve' }]);
    });

    it.for([30_000, -30_000])(
      'makes a seed due by the store clock when the seeding client is %i ms off',
      async (skewMs, t) => {
        if (!ctx.store.capabilities.multiProcess) {
          t.skip(); // one process, one clock: the client's clock is the store's
          return;
        }
        const { store, faults } = await ctx.faultyClient();
        faults.skewClock(skewMs);
        const started = performance.now();
        const { id } = await store.seed({ step: step(), opName: 'op', delayMs: DELAY_MS });
        // a runAt is read by the client's estimate of the store clock, not its own clock
        const { id: at } = await store.seed({
          step: step(),
          opName: 'op',
          runAt: ctx.store.now() + DELAY_MS,
        });
        expect((await ctx.store.scanRunnable()).ids, 'due at once').toEqual([]);
        await eventually(
          'both are due',
          async () => (await ctx.store.scanRunnable()).ids.length === 2,
          DELAY_MS + 5_000,
        );
        expect((await ctx.store.scanRunnable()).ids.sort()).toEqual([id, at].sort());
        expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 100);
      },
    );

    it('stores a deferred seed whose reply was lost once, with the first deferral', async () => {
      const { store, faults } = await ctx.faultyClient();
      faults.inject('lose-reply', 'insert');
      const before = ctx.store.now();
      const { id, created } = await store.seed({ step: step(), opName: 'op', delayMs: 60_000 });
      expect(created).toBe(true);
      expect(faults.calls.get('insert')).toBe(2);
      const all = await ctx.store.list();
      expect(all.map((t) => t.id)).toEqual([id]);
      expect(all[0]?.deferUntil).toBeGreaterThanOrEqual(before + 60_000 - 50);
      expect((await ctx.store.scanRunnable()).ids).toEqual([]);
    });

    it('answers a repeated deferred insert false and keeps the first deferral (raw backend)', async () => {
      const key = { type: 'deferred', key: 'raw' };
      const id = keyedFateId(key);
      const record = { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' };
      await withBackend(ctx.fixture, async (backend) => {
        expect(await backend.insert(id, { ...record, deferMs: 60_000 })).toBe(true);
        const first = (await backend.read(id))?.deferUntil ?? 0;
        expect(first).toBeGreaterThan(backend.now() + 55_000);
        expect(await backend.insert(id, { ...record, deferMs: 1 })).toBe(false);
        expect(await backend.insertMany([{ id, record: { ...record, deferMs: 5 } }])).toEqual([
          false,
        ]);
        expect((await backend.read(id))?.deferUntil).toBe(first);
        expect((await backend.scanRunnable(undefined, 10)).ids).toEqual([]);
      });
    });

    it('keeps the stored deferral when a key is seeded again with another one', async () => {
      const key = { type: 'deferred', key: 'k' };
      const first = await ctx.store.seed({ step: step(), opName: 'op', key, delayMs: 60_000 });
      const deferUntil = (await ctx.store.read(first.id)).deferUntil;
      const again = await ctx.store.seed({ step: step(), opName: 'op', key });
      expect(again).toEqual({ id: first.id, created: false });
      expect((await ctx.store.read(first.id)).deferUntil).toBe(deferUntil);
      expect((await ctx.store.scanRunnable()).ids).toEqual([]);
    });

    it.each([
      ['a negative delay', { delayMs: -1 }],
      ['a NaN delay', { delayMs: Number.NaN }],
      ['an invalid Date', { runAt: new Date(Number.NaN) }],
      ['both', { delayMs: 10, runAt: 0 }],
      ['eleven years', { delayMs: 11 * 365 * 24 * 3_600_000 }],
    ])('refuses %s and stores nothing', async (_name, deferral) => {
      const err = await rejection(ctx.store.seed({ step: step(), opName: 'op', ...deferral }));
      expect(err.code).toBe('FATE_INVALID_ARGUMENT');
      expect(await ctx.store.list()).toEqual([]);
    });
  });
}
