import { type FateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit, rejection } from '../store/context.js';
import { allDone, useEngines } from './engine-context.js';
import { script } from './steps.js';

export function poolTests(target: ConformanceTarget): void {
  describe('worker pools per op', () => {
    const ctx = useEngines(target);

    it('finishes 200 quick transactions before a backlog of 20 slow ones in their own pool', async () => {
      const finishedAt = new Map<FateId, number>();
      const fate = await ctx.engine({
        pools: [
          { name: 'slow', ops: ['slow'], workers: 1 },
          { name: 'fast', workers: 4 },
        ],
        onEvent: (type, e) => {
          if (type === 'finished') finishedAt.set((e as { id: FateId }).id, performance.now());
        },
      });
      const slow = await mapLimit(
        Array.from({ length: 20 }),
        20,
        async () =>
          (await fate.seed(script(1, { sleepMs: 500, sleepAt: 1 }), { opName: 'slow' })).id,
      );
      const fast = await mapLimit(
        Array.from({ length: 200 }),
        20,
        async () => (await fate.seed(script(1), { opName: 'fast' })).id,
      );
      expect(fate.pools().map((p) => [p.name, p.workers])).toEqual([
        ['slow', 1],
        ['fast', 4],
      ]);
      const done = await allDone(fate, fast, 60_000);
      expect(done.every((r) => r.status === Status.SUCCESSFUL)).toBe(true);
      // every quick one is done while the slow backlog (20 × 500 ms on one worker) is not:
      // it needs 10 s, so the case ends here rather than waiting it out
      // (one shared pool would have spent its workers on slow ones and let most finish)
      const slowDone = slow.filter((id) => finishedAt.has(id));
      expect(slowDone.length).toBeLessThanOrEqual(slow.length / 2);
      const slowViews = (await Promise.all(slow.map((id) => fate.read(id)))).map((v) => v.status);
      // the one slow worker may finish one more between the count and the reads
      const slowSucceeded = slowViews.filter((s) => s === Status.SUCCESSFUL).length;
      expect(slowSucceeded - slowDone.length).toBeGreaterThanOrEqual(0);
      expect(slowSucceeded - slowDone.length).toBeLessThanOrEqual(1);
      expect(slowViews.filter((s) => s === Status.IN_PROGRESS).length).toBeLessThanOrEqual(1);
      // the slow pool ran one at a time
      expect(ctx.env.overlaps).toEqual([]);
    });

    it('refuses at start a layout that leaves ops to no pool, or gives one op two pools', async () => {
      const noCatchAll = await rejection(
        ctx.engine({ pools: [{ name: 'slow', ops: ['slow'], workers: 1 }] }),
      );
      expect(noCatchAll.code).toBe('FATE_INVALID_ARGUMENT');
      expect(noCatchAll.message).toMatch(/catch-all/);
      const twice = await rejection(
        ctx.engine({
          pools: [
            { name: 'a', ops: ['x'], workers: 1 },
            { name: 'b', ops: ['x'], workers: 1 },
            { name: 'rest', workers: 1 },
          ],
        }),
      );
      expect(twice.message).toMatch(/op x is in two pools/);
      const empty = await rejection(
        ctx.engine({
          pools: [
            { name: 'none', ops: [], workers: 1 },
            { name: 'rest', workers: 1 },
          ],
        }),
      );
      expect(empty.code).toBe('FATE_INVALID_ARGUMENT');
    });

    it('completes everything with two engines of different pool layouts on one store', async () => {
      const ranBy = new Map<FateId, string>();
      const record = (name: string) => (type: string, e: unknown) => {
        if (type === 'finished') ranBy.set((e as { id: FateId }).id, name);
      };
      const general = await ctx.engine({
        pools: [
          { name: 'slow', ops: ['slow'], workers: 1 },
          { name: 'default', workers: 2 },
        ],
        onEvent: record('general'),
      });
      await ctx.engine({
        pools: [{ name: 'fast', ops: ['fast'], workers: 4 }],
        onlyPooledOps: true,
        onEvent: record('fast-only'),
      });
      const ops = [...Array(20).fill('fast'), ...Array(5).fill('slow'), ...Array(10).fill('other')];
      const ids = await mapLimit(
        ops,
        10,
        async (opName) => (await general.seed(script(2), { opName })).id,
      );
      const done = await allDone(general, ids, 30_000);
      expect(done.every((r) => r.status === Status.SUCCESSFUL)).toBe(true);
      // a waiter can learn of the finish before its engine's 'finished' event is emitted
      await eventually('every finish was reported', async () => ranBy.size >= ids.length, 5_000);
      ids.forEach((id, i) => {
        if (ops[i] !== 'fast') expect(ranBy.get(id), ops[i]).toBe('general');
      });
    });
  });
}
