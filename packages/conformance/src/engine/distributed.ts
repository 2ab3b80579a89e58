import { type FateId, type PartitionData, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit, openClient } from '../store/context.js';
import { allDone, useEngines } from './engine-context.js';
import { script, scriptData } from './steps.js';

export function distributedTests(target: ConformanceTarget): void {
  describe('many instances', () => {
    const ctx = useEngines(target);

    it('runs 500 transactions on 3 instances × 8 workers: all complete, each step once, all instances work', async () => {
      const finishedBy = new Map<string, number>();
      const engines = await Promise.all(
        [0, 1, 2].map(async () => {
          // a lease that outlasts a loaded machine's stalls: a lapse would run a step again
          // (as it must), and this case counts each step once
          const store = await ctx.client({ livenessTimeoutMs: 5_000 });
          return ctx.engine({
            store,
            workers: 8,
            onEvent: (type) => {
              if (type === 'finished')
                finishedBy.set(store.instanceId, (finishedBy.get(store.instanceId) ?? 0) + 1);
            },
          });
        }),
      );
      // wait until every instance sees all three, so the partitions are settled
      await eventually(
        '3 live instances',
        async () =>
          (await openClient(ctx.fixture).then(async (c) => {
            const n = (await c.liveInstances()).length;
            await c.close();
            return n;
          })) === 3,
        10_000,
      );
      const seeder = engines[0];
      if (!seeder) throw new Error('no engine');
      const ids = await mapLimit(
        Array.from({ length: 500 }, (_, i) => i),
        25,
        async (i) => (await seeder.seed(script(3, { result: i }), { opName: 'bulk' })).id,
      );
      const results = await allDone(seeder, ids, 120_000);
      // each that did not succeed, with its status and error (494 of 500 once in a local CI
      // run on ZooKeeper with ACLs, not yet understood)
      expect(results.filter((r) => r.status !== Status.SUCCESSFUL)).toEqual([]);
      expect(results.map((r) => r.returnValue)).toEqual(ids.map((_, i) => i));
      for (const id of ids) {
        for (const n of [1, 2, 3]) expect(ctx.env.calls.get(`${id}:${n}`), `${id}:${n}`).toBe(1);
      }
      // a waiter can learn of the finish before its engine's 'finished' event is emitted (on a
      // ZooKeeper ensemble the seeder's watch once came before the finisher's reply: 499)
      const reported = () => [...finishedBy.values()].reduce((a, b) => a + b, 0);
      await eventually('every finish was reported', async () => reported() >= 500, 10_000);
      expect(reported()).toBe(500);
      expect(finishedBy.size).toBe(3);
      for (const e of engines) expect(finishedBy.get(e.instanceId) ?? 0).toBeGreaterThan(0);
    });

    it('runs every transaction when range and hash engines share a store (none stranded)', async () => {
      // Each cuts the id space its own way; counted as peers of one another, each would take
      // "its half" and the ids in neither half would never run.
      const engines = await Promise.all(
        (['range', 'hash'] as const).map(async (scanner) =>
          ctx.engine({ store: await ctx.client(), scanner }),
        ),
      );
      await eventually(
        '2 live instances',
        async () =>
          (await openClient(ctx.fixture).then(async (c) => {
            const n = (await c.liveInstances()).length;
            await c.close();
            return n;
          })) === 2,
        10_000,
      );
      const seeder = engines[0];
      if (!seeder) throw new Error('no engine');
      const ids = await mapLimit(
        Array.from({ length: 64 }, (_, i) => i),
        16,
        async () => (await seeder.seed(script(1), { opName: 'op' })).id,
      );
      const results = await allDone(seeder, ids, 30_000);
      expect(results.filter((r) => r.status === Status.SUCCESSFUL)).toHaveLength(64);
    });

    it('does not fail a transaction shut down mid-step, and a new instance finishes it', async () => {
      const first = await ctx.engine();
      const { id } = await first.seed(script(4, { gate: 'mid', gateAt: 2 }), { opName: 'op' });
      const gate = ctx.env.gate('mid');
      await eventually('step 2 is running', async () => gate.entered, 10_000);
      const stopping = first.shutdown(10_000);
      await new Promise((r) => setTimeout(r, 50));
      gate.open();
      await stopping;
      const view = await first.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.reservation).toBeUndefined();
      expect(view.stack).toHaveLength(3);
      const second = await ctx.engine();
      const result = await second.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2', 'call:3', 'call:4']);
    });

    it('runs nothing on an instance with an empty partition', async () => {
      const idle = await ctx.engine({ partitions: { partition: 0, total: 0 } });
      const { id } = await idle.seed(script(1), { opName: 'op' });
      await new Promise((r) => setTimeout(r, 500));
      expect((await idle.read(id)).status).toBe(Status.SUBMITTED);
      expect(ctx.env.log.get(id)).toBeUndefined();
      const worker = await ctx.engine({ partitions: { partition: 0, total: 1 } });
      expect((await worker.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
    });

    it('runs only its own range with fixed partitions', async () => {
      const store = await ctx.client();
      const ids = (
        await mapLimit(
          Array.from({ length: 60 }),
          20,
          async () => (await store.seed({ step: scriptData(1), opName: 'op' })).id,
        )
      ).sort();
      const mine = new Set<FateId>();
      const half = await ctx.engine({
        partitions: { partition: 1, total: 2 },
        onEvent: (type, e) => {
          if (type === 'finished') mine.add((e as { id: FateId }).id);
        },
      });
      const inUpperHalf = ids.filter((id) => id >= '80000000');
      await allDone(half, inUpperHalf, 30_000);
      await eventually(
        'every finish was reported',
        async () => mine.size >= inUpperHalf.length,
        5_000,
      );
      expect([...mine].sort()).toEqual(inUpperHalf);
      for (const id of ids.filter((id) => id < '80000000'))
        expect((await half.read(id)).status).toBe(Status.SUBMITTED);
    });

    it('loses nothing and runs nothing twice while partitions change at run time', async () => {
      let flip = 0;
      const supplier = (me: number) => (): PartitionData => ({
        partition: (me + flip) % 2,
        total: 2,
      });
      const timer = setInterval(() => {
        flip++;
      }, 30);
      try {
        const a = await ctx.engine({ partitions: supplier(0), workers: 4 });
        await ctx.engine({ partitions: supplier(1), workers: 4 });
        const ids = await mapLimit(
          Array.from({ length: 200 }),
          20,
          async () => (await a.seed(script(3), { opName: 'op' })).id,
        );
        const results = await allDone(a, ids, 60_000);
        expect(results.every((r) => r.status === Status.SUCCESSFUL)).toBe(true);
        for (const id of ids)
          for (const n of [1, 2, 3]) expect(ctx.env.calls.get(`${id}:${n}`)).toBe(1);
      } finally {
        clearInterval(timer);
      }
    });

    it('resumes the transactions of a dead instance once its reservation is cleared', async () => {
      const dying = await ctx.client({ livenessTimeoutMs: 500 });
      await dying.registerInstance();
      const { id } = await dying.seed({ step: scriptData(2), opName: 'op' });
      const held = await dying.reserve(id);
      expect(held.isReserved).toBe(true);
      // the holder stops heartbeating (as a killed process would); a live engine takes over
      const survivor = await ctx.engine();
      const result = await survivor.waitForCompletion(id, { timeoutMs: 15_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(await held.setStatus(Status.FAILED).catch((e: { code?: string }) => e.code)).toBe(
        'FATE_NOT_RESERVED',
      );
    });
  });
}
